package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/// A GPU older than the shipped PTX's target, or a driver too old for its ISA, is refused when
/// the device opens, in one line naming the GPU and what is needed — not later, when the kernels
/// fail to load (host emulation of the driver, reporting the capability a test sets).
class HostCudaCapabilityTest {
    @AfterEach
    void backToAnH200() {
        HostDriver.setCapability(9, 0, 13000);
    }

    @Test
    void aGpuOlderThanThePtxTargetIsRefusedNamingItAndWhatIsNeeded() {
        HostDriver.setCapability(7, 0, 13000);
        assertThat(CudaDevice.unsupported(HostDriver.probe(), 0)).isNotNull();
        assertThatThrownBy(() -> CudaDevice.open(HostDriver.probe(), 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cuda:0 (Penstock host emulation").hasMessageContaining("compute capability 7.0")
                .hasMessageContaining("need 7.5 or newer").hasMessageNotContaining("\n");
    }

    @Test
    void aDriverTooOldForThePtxIsRefusedNamingBothVersions() {
        HostDriver.setCapability(9, 0, 12080);
        assertThatThrownBy(() -> CudaDevice.open(HostDriver.probe(), 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("supports CUDA 12.8").hasMessageContaining("CUDA 13.0 or newer");
    }

    @Test
    void everyGpuFromTheTargetUpOpensAndLoadsTheKernels() {
        for (int[] cc : new int[][] {{7, 5}, {8, 0}, {8, 9}, {9, 0}, {10, 0}}) {
            HostDriver.setCapability(cc[0], cc[1], 13000);
            assertThat(CudaDevice.unsupported(HostDriver.probe(), 0)).as("%d.%d", cc[0], cc[1]).isNull();
            try (CudaDevice d = CudaDevice.open(HostDriver.probe(), 0)) {
                new EncodeKernels(d); // loads encode.ptx: the emulation refuses PTX for a newer target, as the driver does
                new CudaRelaxKernels(d);
            }
        }
    }
}
