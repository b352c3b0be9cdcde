package dev.penstock.device;

import java.time.Duration;

class CpuDeviceTest extends DeviceContractTest {
    private static int counter;

    private String name;

    @Override
    protected Device newDevice() {
        name = "cputest" + (counter++);
        return new CpuDevice(name, Duration.ofSeconds(1));
    }

    @Override
    protected String threadPrefix() {
        return "penstock-" + name + "-";
    }
}
