package dev.penstock.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/// The copy/compute overlap of `TransferStats`: the time of one set of intervals inside the
/// union of another's (overlapping kernels counted once, intervals added in any order).
class IntervalsTest {
    @Test
    void overlapIsTheTimeOfTheseIntervalsInsideTheUnionOfTheOthers() {
        Intervals copies = new Intervals();
        copies.add(20, 30);
        copies.add(0, 10);
        copies.add(40, 50);
        Intervals kernels = new Intervals();
        kernels.add(5, 25);
        kernels.add(8, 12); // inside the first: counted once
        kernels.add(45, 60);
        kernels.add(100, 200);
        assertThat(copies.overlap(kernels)).isEqualTo(5 + 5 + 5);
        assertThat(kernels.overlap(copies)).isEqualTo(5 + 2 + 5 + 5); // [5,10) [8,10) [20,25) [45,50)
        assertThat(copies.overlap(new Intervals())).isZero();
    }
}
