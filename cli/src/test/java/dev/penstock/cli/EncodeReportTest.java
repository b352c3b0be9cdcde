package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.quantum.EncodeSummary;
import dev.penstock.transfer.TransferStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/// What `encode` says about its first chunk: a first chunk far slower than the later ones (a fresh
/// JVM's JIT compiling the kernels) is named with both figures; an even run says nothing of it.
class EncodeReportTest {
    private static String report(long firstKernelMs, long kernelMs, long chunks) {
        TransferStats t = new TransferStats(1 << 20, chunks, 1_500_000_000L, 0, 0, 40_000_000L, kernelMs * 1_000_000, 0, 30_000_000L,
                firstKernelMs * 1_000_000);
        EncodeSummary s = new EncodeSummary(20_000, 20_000, List.of(), 1_500_000_000L, 0, t, 0, 500_000_000L);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new EncodeReport(Path.of("s.npy"), Path.of("s.npy.rows.npy"), Path.of("s.npy.skipped.tsv"), "amplitude", 10, false)
                .print(new PrintStream(bytes, true, StandardCharsets.UTF_8), s, Map.of(), 1_000_000);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aFirstChunkFarSlowerThanTheRestIsNamedAsTheJitsWarmUp() {
        assertThat(report(480, 480 + 19 * 4, 20)).contains("bottleneck: encoding (556.0 ms busy")
                .contains("the first chunk's encoding took 480.0 ms, each later one 4.0 ms on average (the JIT compiling the kernels)");
        assertThat(report(5, 100, 20)).contains("bottleneck:").doesNotContain("first chunk");
        assertThat(report(480, 480, 1)).as("one chunk: nothing to compare").doesNotContain("first chunk");
    }
}
