package dev.penstock.cli.readme;

// README:imports begin
import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.io.ExtXyzSink;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.History;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.data.Batch;
import dev.penstock.data.Collate;
import dev.penstock.data.DataLoader;
import dev.penstock.data.LoaderState;
import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Block;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import java.nio.file.Path;
import java.util.List;
// README:imports end

/// The README's Java examples as compiled code: README.md quotes the regions between the
/// `README:` markers verbatim (`ReadmeExamplesTest` checks it, and runs them).
public final class ReadmeExamples {
    /// What the loader example's training loop calls.
    public interface Model {
        void step(Block batch);
    }

    /// Where the loader example saves its resume points.
    public interface Checkpoint {
        void save(LoaderState state);
    }

    private ReadmeExamples() {
    }

    /// The loader example, as README shows it.
    public static void loader(Features dataset, Model model, Checkpoint checkpoint) {
        // README:loader begin
        try (var loader = DataLoader.builder(dataset)      // Dataset<Block, Block>
                .batchSize(32).workers(64).virtualThreads(true).sampler("shuffled").seed(42)
                .collate(Collate.stack())                  // [32, 256] block on the prep stream
                .build()) {
            for (int epoch = 0; epoch < 3; epoch++) {
                for (Batch<Block> batch : loader) {        // batch N+1 is already being prepared
                    loader.computeStream().launch("step", () -> model.step(batch.data()));
                    checkpoint.save(loader.state());       // resume later with loader.restore(state)
                }
                System.out.println(loader.stallReport().summary());
            }
        }
        // README:loader end
    }

    /// The stage-pipeline example, as README shows it.
    public static Summary<AtomicSystem> pipeline(List<AtomicSystem> systems, Path out) throws Exception {
        // README:pipeline begin
        LennardJones argon = new LennardJones(0.0104, 3.4, 8.5, true); // ε eV, σ Å, cutoff Å, shifted to 0 there
        double maxStep = 1.0; // Å: a system with an atom moving more in one step is quarantined (simulate --max-step)
        long seed = 0;        // keys the Langevin noise (simulate --seed's default: the same output, bit for bit)
        try (CpuDevice cpu = new CpuDevice()) { // or CudaDevice.open(0) with new CudaRelaxKernels(device)
            Stage<AtomicSystem> relaxAndAnneal = DeviceStages.stage("fire(fmax=0.005) + langevin(T=40, dt=5, steps=2000)", argon, cpu,
                    d -> new CpuRelaxKernels(1), maxStep, seed); // one batch, each system routed by its sub-stage
            Stage<AtomicSystem> production = DeviceStages.stage("nve(dt=5, steps=1000)", argon, cpu, d -> new CpuRelaxKernels(1),
                    maxStep, seed);
            try (Pipeline<AtomicSystem> p = relaxAndAnneal.then(production).sizer(Systems.withListRadius(8.5))
                    .batchCapacity(Capacity.of(64, 600, 200_000)).samples(systems).hook(History.hook(stage -> { }))
                    .results(new ExtXyzSink(out))) {
                return p.run(); // every system delivered once, with its outcome; out appears, complete, on success
            }
        }
        // README:pipeline end
    }
}
