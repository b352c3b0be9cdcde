package dev.penstock.cuda;

import dev.penstock.data.LoaderDeviceContractTest;
import dev.penstock.device.Device;

/// The loader's device contract on a `CudaDevice` over the host emulation of the driver, whose
/// device memory the host cannot read (a host copy of a batch block would crash): collation,
/// lookahead, gating, resume, failures and close all run through device copies and the
/// driver's streams.
class HostCudaLoaderContractTest extends LoaderDeviceContractTest {
    @Override
    protected Device newDevice() {
        return CudaDevice.open(HostDriver.probe(), 0);
    }
}
