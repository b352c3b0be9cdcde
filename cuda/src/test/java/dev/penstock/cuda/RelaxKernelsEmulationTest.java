package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/// `RelaxKernelsChecks` on the host emulation of the driver (`HostDriver`: the real bindings,
/// `relax.cu` compiled for the host), bit for bit; every launch reached the emulation and every
/// device allocation was freed.
class RelaxKernelsEmulationTest extends RelaxKernelsChecks {
    private HostDriver.Counts before;

    @BeforeEach
    void count() {
        before = HostDriver.counts();
    }

    @AfterEach
    void released() {
        HostDriver.Counts after = HostDriver.counts();
        assertThat(after.launches() - before.launches()).as("kernel launches").isGreaterThan(100);
        assertThat(after.deviceAllocations()).as("device memory freed").isEqualTo(before.deviceAllocations());
    }

    @Override
    CudaDevice openDevice() {
        return CudaDevice.open(HostDriver.probe(), 0);
    }

    @Override
    boolean bitExact() {
        return true;
    }
}
