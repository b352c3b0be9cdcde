package dev.penstock.data;

import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;

/// The loader's device contract on the CPU device.
class CpuLoaderContractTest extends LoaderDeviceContractTest {
    @Override
    protected Device newDevice() {
        return new CpuDevice();
    }
}
