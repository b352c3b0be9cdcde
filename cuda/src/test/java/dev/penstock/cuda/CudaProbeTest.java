package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.api.Test;

/// Without a GPU, CUDA says why instead of crashing.
class CudaProbeTest {

    @Test
    void theProbeNeverThrowsAndSaysWhyCudaIsNotUsable() {
        CudaDriver.Probe p = CudaDriver.probe();
        assertThat(p).isSameAs(CudaDriver.probe());
        if (p.usable()) {
            assertThat(p.reason()).isNull();
            assertThat(p.devices()).isPositive();
        } else {
            assertThat(p.reason()).isNotBlank();
        }
    }

    @Test
    void openingAnUnusableDeviceFailsWithTheReason() {
        CudaDriver.Probe p = CudaDriver.probe();
        assumeFalse(p.usable(), "a GPU is here: the unusable path is not reachable");
        assertThatThrownBy(() -> CudaDevice.open(0)).isInstanceOf(IllegalStateException.class).hasMessageContaining("cuda:0 is not available")
                .hasMessageContaining(p.reason());
    }

    @Test
    void aMissingDriverLibraryIsNamed() {
        assumeFalse(CudaDriver.probe().usable(), "a GPU is here");
        if (!java.nio.file.Files.exists(java.nio.file.Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"))
                && System.getenv("PENSTOCK_CUDA_DRIVER") == null) {
            assertThat(CudaDriver.probe().reason()).contains("libcuda.so.1").contains("NVIDIA driver");
        }
    }
}
