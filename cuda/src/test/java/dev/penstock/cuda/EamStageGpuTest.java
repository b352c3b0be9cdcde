package dev.penstock.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Tag;

/// `EamStageChecks` on a real GPU (`cuda:0`). Tagged `cuda`: skipped where no GPU is usable (CI);
/// run by `scripts/gpu-check.sh` on a GPU machine (the bundle carries LAMMPS's EAM files).
@Tag("cuda")
class EamStageGpuTest extends EamStageChecks {
    @Override
    CudaDevice openDevice() {
        assumeTrue(CudaDriver.probe().usable(), () -> "no usable GPU: " + CudaDriver.probe().reason());
        return CudaDevice.open(0);
    }
}
