package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/// The job jars' `--key value` arguments: what `flink run` users get wrong is named.
class JobArgsTest {
    @Test
    void unknownMissingAndIncompleteOptionsAreNamed() {
        assertThat(EncodeJob.options(new String[] {"--input", "a.npy", "--out", "s.npy", "--encoding", "angle", "--qubits", "3"}))
                .containsEntry("qubits", "3").containsEntry("input", "a.npy");
        assertThatThrownBy(() -> EncodeJob.options(new String[] {"--inptu", "a.npy"})).hasMessageContaining("unknown option '--inptu'")
                .hasMessageContaining("--input").hasMessageContaining("--zarr-format");
        assertThatThrownBy(() -> EncodeJob.options(new String[] {"--input", "a.npy", "--out"})).hasMessageContaining("'--out' needs a value");
        assertThatThrownBy(() -> EncodeJob.options(new String[] {"--input", "a.npy", "--out", "s.npy", "--encoding", "angle"}))
                .hasMessageContaining("missing option '--qubits'");
        assertThatThrownBy(() -> SimulateJob.options(new String[] {"--input", "s.xyz", "--out", "o"}))
                .hasMessageContaining("missing option '--pipeline'");
    }

    @Test
    void aNumberThatIsNotOneIsNamedBeforeAnythingIsRead() {
        String[] base = {"--input", "no-such.xyz", "--out", "o", "--pipeline", "fire(fmax=0.1)", "--potential", "lj(epsilon=1, sigma=1, cutoff=2.5)"};
        for (String[] bad : new String[][] {{"--max-step", "abc"}, {"--max-atoms", "4k"}, {"--parallelism", "2,x"}, {"--threads", "9999999999"},
            {"--restart-delay", "soon"}}) {
            String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(base), java.util.Arrays.stream(bad)).toArray(String[]::new);
            assertThatThrownBy(() -> SimulateJob.build(org.apache.flink.streaming.api.environment.StreamExecutionEnvironment.getExecutionEnvironment(),
                    args)).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("option '" + bad[0] + "'")
                    .hasMessageContaining(bad[1].contains(",") ? "x" : bad[1]);
        }
        assertThatThrownBy(() -> EncodeJob.run(org.apache.flink.streaming.api.environment.StreamExecutionEnvironment.getExecutionEnvironment(),
                EncodeJob.options(new String[] {"--input", "a.npy", "--out", "s.npy", "--encoding", "angle", "--qubits", "three"})))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("option '--qubits': expected a whole number, got 'three'");
        assertThatThrownBy(() -> EncodeJob.run(org.apache.flink.streaming.api.environment.StreamExecutionEnvironment.getExecutionEnvironment(),
                EncodeJob.options(new String[] {"--input", "no-such.npy", "--out", "s.npy", "--encoding", "angle", "--qubits", "3", "--device",
                    "gpu"}))).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("option '--device'").hasMessageContaining("'gpu'");
    }

    @Test
    void theEncodeJobRefusesAnOutputThatIsItsInput(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path in = java.nio.file.Files.writeString(dir.resolve("rows.npy"), "not even read");
        byte[] before = java.nio.file.Files.readAllBytes(in);
        assertThatThrownBy(() -> EncodeJob.run(org.apache.flink.streaming.api.environment.StreamExecutionEnvironment.getExecutionEnvironment(),
                EncodeJob.options(new String[] {"--input", in.toString(), "--out", in.toString(), "--encoding", "angle", "--qubits", "3"})))
                .isInstanceOf(dev.penstock.io.OutputException.class).hasMessageContaining("rows.npy");
        assertThat(java.nio.file.Files.readAllBytes(in)).isEqualTo(before);
    }
}
