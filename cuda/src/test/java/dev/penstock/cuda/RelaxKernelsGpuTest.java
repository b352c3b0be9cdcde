package dev.penstock.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Tag;

/// `RelaxKernelsChecks` on a real GPU (`cuda:0`): equal step counts, energies to 1e-10. Tagged
/// `cuda`: skipped where no GPU is usable (CI); run by `scripts/gpu-check.sh` on a GPU machine.
@Tag("cuda")
class RelaxKernelsGpuTest extends RelaxKernelsChecks {
    @Override
    CudaDevice openDevice() {
        assumeTrue(CudaDriver.probe().usable(), () -> "no usable GPU: " + CudaDriver.probe().reason());
        return CudaDevice.open(0);
    }

    @Override
    boolean bitExact() {
        return false;
    }
}
