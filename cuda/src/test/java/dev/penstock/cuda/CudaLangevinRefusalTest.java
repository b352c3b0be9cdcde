package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.PipelineSpec;
import org.junit.jupiter.api.Test;

/// A `langevin` stage on a CUDA device (the host emulation of the driver) is refused when the
/// pipeline is built, naming what runs it — the CUDA kernels have no Langevin step yet (its
/// noise is the JDK's generator) — while `fire` and `nve` stages build.
class CudaLangevinRefusalTest {
    @Test
    void aLangevinStageOnCudaIsRefusedWhenThePipelineIsBuiltNamingWhatRunsIt() {
        LennardJones lj = new LennardJones(1, 1, 2.5, true);
        long before = HostDriver.counts().deviceAllocations();
        try (CudaDevice cuda = CudaDevice.open(HostDriver.probe(), 0)) {
            assertThat(new CudaRelaxKernels(cuda).langevin()).isFalse();
            var langevin = PipelineSpec.parse("langevin(T=300, dt=1, steps=10)").getFirst();
            assertThatThrownBy(() -> DeviceStages.stage(langevin, lj, cuda, d -> new CudaRelaxKernels(cuda), Double.POSITIVE_INFINITY, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--device cuda:0")
                    .hasMessageEndingWith("has no 'langevin' step yet (its noise generator runs on the CPU only); run that stage with "
                            + "--device cpu or the CPU stages (no --device)");
            for (String ok : new String[] {"fire(fmax=0.01)", "nve(dt=1, steps=10)"}) {
                assertThat(DeviceStages.stage(PipelineSpec.parse(ok).getFirst(), lj, cuda, d -> new CudaRelaxKernels(cuda),
                        Double.POSITIVE_INFINITY, 1)).as(ok).isNotNull();
            }
        }
        assertThat(HostDriver.counts().deviceAllocations()).as("device memory freed").isEqualTo(before);
    }
}
