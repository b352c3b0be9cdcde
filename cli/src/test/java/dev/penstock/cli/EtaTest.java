package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/// The time left comes from the recent rate: a slow start (the JIT warming up) does not make
/// the estimate pessimistic once the run is going at speed.
class EtaTest {
    private static final long S = 1_000_000_000L;

    @Test
    void theEstimateUsesTheLastTenSecondsNotTheWholeRun() {
        Eta eta = new Eta();
        long total = 10_000;
        assertThat(Eta.left(0, total, eta.rate(0, 0))).isEqualTo("…");
        // 20 s at 10 rows/s (warm-up), then 10 s at 200 rows/s, sampled every second
        long d = 0;
        double rate = 0;
        for (int t = 1; t <= 30; t++) {
            d += t <= 20 ? 10 : 200;
            rate = eta.rate(d, t * S);
        }
        assertThat(d).isEqualTo(2_200);
        assertThat(rate).as("rows/s over the last 10 s").isEqualTo(200.0);
        assertThat(Eta.left(d, total, rate)).isEqualTo("39 s left"); // 7,800 rows at 200/s; since the start: 106 s
        assertThat(Eta.left(total, total, rate)).isEqualTo("0 s left");
        assertThat(Eta.left(0, 1_000_000, 100)).isEqualTo("167 min left");
    }

    @Test
    void noProgressGivesNoEstimate() {
        Eta eta = new Eta();
        eta.rate(5, 0);
        assertThat(Eta.left(5, 10, eta.rate(5, 3 * S))).isEqualTo("…");
    }
}
