package dev.penstock.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.device.Device;
import dev.penstock.device.DeviceContractTest;
import org.junit.jupiter.api.Tag;

/// The device contract every `Device` passes (core's `DeviceContractTest`), on `cuda:0`. Tagged
/// `cuda`: skipped where no GPU is usable.
@Tag("cuda")
public class CudaDeviceContractTest extends DeviceContractTest {
    @Override
    protected Device newDevice() {
        assumeTrue(CudaDriver.probe().usable(), () -> "no usable GPU: " + CudaDriver.probe().reason());
        return CudaDevice.open(0);
    }

    @Override
    protected String threadPrefix() {
        return ""; // host ops run on the driver's own callback thread
    }
}
