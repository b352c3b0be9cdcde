package dev.penstock.cuda;

import dev.penstock.device.Device;
import dev.penstock.device.DeviceContractTest;

/// The `Device` contract (core's `DeviceContractTest`) on a `CudaDevice` over the host
/// emulation of the driver (`HostDriver`): the bindings' streams, events, host-function upcalls
/// and failures, checked in every build. On a GPU, `CudaDeviceContractTest` runs the same.
class HostCudaContractTest extends DeviceContractTest {
    @Override
    protected Device newDevice() {
        return CudaDevice.open(HostDriver.probe(), 0);
    }

    @Override
    protected String threadPrefix() {
        return ""; // host ops run on the driver's own stream threads
    }
}
