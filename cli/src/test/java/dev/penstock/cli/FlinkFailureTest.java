package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/// A worker failing on Flink stops and returns everything as the local runner does: the user
/// reads one line (the bad row), no pump thread left running, no staging buffer still leased.
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class FlinkFailureTest {
    @TempDir
    Path dir;

    @Test
    void aBadRowOnFlinkEndsInOneLineWithNothingLeftRunningOrLeased() throws Exception {
        Path in = NothingLostTest.rows(dir.resolve("rows.npy"), 5000, 16, 3000);
        Path out = dir.resolve("states.npy");
        String java = ProcessHandle.current().info().command().orElse("java");
        for (int attempt = 0; attempt < 2; attempt++) {
            List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                    "-cp", System.getProperty("java.class.path"), Main.class.getName(), "encode", in.toString(), "--encoding", "amplitude",
                    "--qubits", "4", "--out", out.toString(), "--runner", "flink", "--parallelism", "2", "--rows-per-chunk", "256"));
            Path log = dir.resolve("run.log");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertThat(p.waitFor(200, TimeUnit.SECONDS)).isTrue();
            String printed = Files.readString(log);
            assertThat(p.exitValue()).as(printed).isEqualTo(ExitCodes.BAD_INPUT);
            assertThat(printed).contains("row 3000").contains("left as it was")
                    .doesNotContain("did not stop").doesNotContain("still leased").doesNotContain("WARNING: staging").doesNotContain("\tat ");
            assertThat(out).doesNotExist();
        }
    }
}
