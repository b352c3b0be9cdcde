package dev.penstock.cuda;

/// `EamStageChecks` through the host emulation of the driver (`eam.cu` and `relax.cu` compiled for the host).
class EamStageEmulationTest extends EamStageChecks {
    @Override
    CudaDevice openDevice() {
        return CudaDevice.open(HostDriver.probe(), 0);
    }
}
