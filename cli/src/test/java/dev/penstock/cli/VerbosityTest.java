package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `--quiet` prints nothing but errors and the `--json` object, `--verbose` adds the resolved
/// settings; neither changes what is written.
class VerbosityTest {
    private static final String EXAMPLE = "../examples/argon-clusters.xyz";
    private static final String PIPELINE = "fire(fmax=0.01) | nve(dt=5, steps=50)";
    private static final String LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";

    @TempDir
    Path dir;

    @Test
    void quietSimulatePrintsNothingVerboseSaysTheSettings() throws Exception {
        Path q = dir.resolve("q.xyz");
        Path v = dir.resolve("v.xyz");
        assertThat(MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", q.toString(), "-q")).isEmpty();
        String verbose = MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", v.toString(), "--verbose");
        assertThat(verbose).contains("settings: runner local, mode sync, device cpu, threads default").contains("order input")
                .contains("24 of 24 systems finished");
        assertThat(Files.readString(q)).isEqualTo(Files.readString(v));
        String json = MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", dir.resolve("j.xyz").toString(),
                "--quiet", "--json");
        assertThat(json.strip()).startsWith("{\"input\": ").endsWith("]}").doesNotContain("\n");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", q.toString(), "-q", "-v"))
                .contains("'--quiet' and '--verbose' exclude each other");
    }

    @Test
    void quietEncodePrintsNothingEvenWhileWritingItsExample() throws Exception {
        Path rows = dir.resolve("rows.npy");
        Path states = dir.resolve("s.npy");
        assertThat(MainTest.run(0, "encode", rows.toString(), "--example", "3000", "--encoding", "angle", "--qubits", "4", "--out",
                states.toString(), "--quiet")).isEmpty();
        assertThat(Files.size(states)).isEqualTo(128 + 3000L * 16 * 16);
        String verbose = MainTest.run(0, "encode", rows.toString(), "--encoding", "angle", "--qubits", "4", "--out",
                dir.resolve("t.npy").toString(), "-v");
        assertThat(verbose).contains("settings: encoding angle, 4 qubits, c128 states, 1024 rows per chunk, 4 I/O threads").contains("encoded 3000 of");
        assertThat(Files.readAllBytes(dir.resolve("t.npy"))).isEqualTo(Files.readAllBytes(states));
    }
}
