package dev.penstock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.memory.Block;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoaderWorkloadTest {

    /// The vectorised rotation against a direct `Math.sin` evaluation and a two-pass normalisation.
    @Test
    void fillMatchesTheDirectFormulaToFloatPrecision() throws Exception {
        try (LoaderWorkload ds = new LoaderWorkload(10)) {
            for (long index : new long[] {0, 5, 996, 997, 123_456}) {
                Block b = ds.loadHost(index, null);
                double a = 1e-3 * (index % 997 + 1);
                float[] x = new float[LoaderWorkload.FEATURES];
                double sum = 0;
                for (int j = 0; j < x.length; j++) {
                    x[j] = (float) Math.sin(j * a + 2);
                    sum += x[j];
                }
                double mean = sum / x.length;
                double sq = 0;
                for (float v : x) {
                    sq += (v - mean) * (v - mean);
                }
                double std = Math.sqrt(sq / x.length);
                double maxErr = 0;
                for (int j = 0; j < x.length; j++) {
                    maxErr = Math.max(maxErr, Math.abs(b.getFloat(j) - (x[j] - mean) / std));
                }
                assertThat(maxErr).as("sample %d", index).isLessThan(2e-5);
                ds.releaseHost(b);
            }
        }
    }

    @Test
    void hostSamplesAreRecycled() throws Exception {
        try (LoaderWorkload ds = new LoaderWorkload(10)) {
            Block first = ds.loadHost(1, null);
            ds.releaseHost(first);
            assertThat(ds.loadHost(2, null)).isSameAs(first);
            assertThat(ds.hostBytes(first)).isEqualTo(4L * LoaderWorkload.FEATURES);
        }
    }

    @Test
    void calibrationScalesTheStepToTheTarget() {
        ModelStep shortStep = new ModelStep().calibrate(200_000);
        ModelStep longStep = new ModelStep().calibrate(4_000_000);
        assertThat(longStep.chunks()).isGreaterThan(shortStep.chunks());
    }

    @Test
    void summaryPicksTheBestWorkerCountAndComputesTheRatioToThePeer() {
        var results = List.of(new LoaderBench.Result("platform", 1, 400, 390, 410, 0.9, 1.01),
                new LoaderBench.Result("virtual", 8, 3000, 2900, 3100, 0.1, 1.10));
        Map<String, String> m = LoaderBench.summary(results, Map.of("torch_samples_per_s", 1200.0));
        assertThat(m).containsEntry("best_workers", "8").containsEntry("best_threads", "virtual")
                .containsEntry("samples_per_s_platform_w1", "400.0").containsEntry("samples_per_s", "3000.0")
                .containsEntry("ideal_ratio_max", "1.100").containsEntry("ratio_vs_torch", "2.500");
        assertThat(LoaderBench.summary(results, null)).doesNotContainKey("ratio_vs_torch");
    }
}
