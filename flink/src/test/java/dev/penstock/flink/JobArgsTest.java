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
}
