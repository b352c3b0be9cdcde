package dev.penstock.cli;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.device.RelaxKernels;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.cuda.CudaDevice;
import dev.penstock.cuda.CudaDriver;
import dev.penstock.cuda.CudaRelaxKernels;
import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.stage.Pipeline;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;

/// The device `simulate --device cpu|cuda[:N]` (cpu by default) keeps its stage batches on: each
/// stage's systems packed in that device's memory and stepped by batch kernels (`DeviceStages`);
/// on the CPU the kernels have every model compute each system from its rows.
final class SimulateDevice implements AutoCloseable {
    private final Device device;
    private final Function<Device, RelaxKernels> kernels;

    private SimulateDevice(Device device, Function<Device, RelaxKernels> kernels) {
        this.device = device;
        this.kernels = kernels;
    }

    /// The device the option names, its kernels split over `threads` on the CPU; an
    /// `IllegalArgumentException` saying why when it cannot be used.
    static SimulateDevice open(String option, int threads) {
        String o = option.toLowerCase(Locale.ROOT);
        if (o.equals("cpu")) {
            return new SimulateDevice(new CpuDevice(), d -> new CpuRelaxKernels(threads));
        }
        if (o.equals("cuda") || o.matches("cuda:\\d+")) {
            CudaDriver.Probe p = CudaDriver.probe();
            if (!p.usable()) {
                throw new IllegalArgumentException("option '--device': " + o + " is not available: " + p.reason());
            }
            CudaDevice cuda = CudaDevice.open(o.equals("cuda") ? 0 : Integer.parseInt(o.substring(5)));
            return new SimulateDevice(cuda, d -> new CudaRelaxKernels(cuda));
        }
        throw new IllegalArgumentException("option '--device': expected cpu or cuda[:N], got '" + option + "'");
    }

    /// The pipeline of `stages` with every stage's batch on this device, quarantining a system
    /// with an atom that moves more than `maxStep` Å in a step (checked by the step kernels),
    /// Langevin noise keyed by `seed`; a stage the device stages cannot run yet is refused,
    /// naming it.
    Pipeline<AtomicSystem> build(List<List<PipelineSpec.Call>> stages, Supplier<? extends Model> model, double maxStep, long seed) {
        return DeviceStages.pipeline(stages, model, device, kernels, maxStep, seed);
    }

    /// The device's name (`cpu`, `cuda:0`).
    String name() {
        return device.name();
    }

    @Override
    public void close() {
        device.close();
    }
}
