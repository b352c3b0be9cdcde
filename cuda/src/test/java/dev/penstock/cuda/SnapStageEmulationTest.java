package dev.penstock.cuda;

/// `SnapStageChecks` through the host emulation of the driver (`snap.cu` compiled for the host).
class SnapStageEmulationTest extends SnapStageChecks {
    @Override
    CudaDevice openDevice() {
        return CudaDevice.open(HostDriver.probe(), 0);
    }
}
