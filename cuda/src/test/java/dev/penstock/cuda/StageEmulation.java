package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.device.RelaxKernels;
import dev.penstock.atoms.io.Elements;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;

/// A model's stage pipeline on CUDA through the host emulation of the driver against the same
/// pipeline on `CpuDevice` (the model over each system's rows), for the tests of the models the
/// CUDA kernels run (`EamStageChecks`, `SnapStageChecks`), and the systems they
/// run it on.
final class StageEmulation {
    static final String PIPELINE = "fire(fmax=0.05, steps=150) + langevin(T=500, dt=2, steps=12) | nve(dt=2, steps=15) + nvt(T=500, tdamp=50, dt=2, steps=10)";
    static final long SEED = 23;
    static final double[][] FCC = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    static final double[][] BCC = {{0, 0, 0}, {0.5, 0.5, 0.5}};

    private StageEmulation() {
    }

    /// A cluster of the `n` fcc sites nearest the origin (nearest neighbours `nearest` Å), off
    /// them by up to ±0.1 Å, a fraction `mix` of its atoms `z[1]`, the rest `z[0]`.
    static AtomicSystem cluster(long id, int n, double nearest, int[] z, double mix, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] r = Clusters.fccSites(n, nearest);
        int[] numbers = new int[n];
        for (int i = 0; i < n; i++) {
            for (int d = 0; d < 3; d++) {
                r[3 * i + d] += rnd.nextDouble(-0.1, 0.1);
            }
            numbers[i] = rnd.nextDouble() < mix ? z[1] : z[0];
        }
        return new AtomicSystem(id, r, masses(numbers), numbers, Cell.free());
    }

    /// An fcc crystal of k³ cells (lattice constant `a`, tilt `xy` Å), periodic, off its sites by
    /// up to ±0.1 Å, a fraction `mix` of its atoms `z[1]`.
    static AtomicSystem crystal(long id, int k, double a, double xy, int[] z, double mix, long seed) {
        return crystal(id, FCC, k, a, xy, z, mix, seed);
    }

    /// A crystal of `basis` in k³ cubic cells (lattice constant `a`, tilt `xy` Å), periodic, off its
    /// sites by up to ±0.1 Å, a fraction `mix` of its atoms `z[1]`.
    static AtomicSystem crystal(long id, double[][] basis, int k, double a, double xy, int[] z, double mix, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = basis.length * k * k * k;
        double[] r = new double[3 * n];
        int[] numbers = new int[n];
        int p = 0;
        for (int x = 0; x < k; x++) {
            for (int y = 0; y < k; y++) {
                for (int w = 0; w < k; w++) {
                    for (double[] b : basis) {
                        r[3 * p] = (x + b[0]) * a + (y + b[1]) / k * xy + rnd.nextDouble(-0.1, 0.1);
                        r[3 * p + 1] = (y + b[1]) * a + rnd.nextDouble(-0.1, 0.1);
                        r[3 * p + 2] = (w + b[2]) * a + rnd.nextDouble(-0.1, 0.1);
                        numbers[p] = rnd.nextDouble() < mix ? z[1] : z[0];
                        p++;
                    }
                }
            }
        }
        return new AtomicSystem(id, r, masses(numbers), numbers, Cell.of(new double[] {k * a, 0, 0, xy, k * a, 0, 0, 0, k * a},
                new boolean[] {true, true, true}));
    }

    private static double[] masses(int[] z) {
        double[] m = new double[z.length];
        for (int i = 0; i < z.length; i++) {
            m[i] = Elements.mass(z[i]);
        }
        return m;
    }

    /// One delivered system: its stage history, energy and positions; or its diagnosis.
    record Result(String stages, double energy, double[] positions, double[] forces, double[] virial, double[] cell, String diagnosis) {
    }

    static Map<Long, Result> run(Device device, Function<Device, RelaxKernels> kernels, Model model, List<AtomicSystem> systems) {
        return run(device, kernels, model, systems, PIPELINE);
    }

    /// The delivered systems of pipeline `spec` (as `simulate` takes it) by id.
    static Map<Long, Result> run(Device device, Function<Device, RelaxKernels> kernels, Model model, List<AtomicSystem> systems, String spec) {
        Pipeline<AtomicSystem> p = null;
        for (List<PipelineSpec.Call> calls : PipelineSpec.parse(spec)) {
            Stage<AtomicSystem> stage = DeviceStages.stage(calls, model, device, kernels, Double.POSITIVE_INFINITY, SEED);
            p = p == null ? Pipeline.of(stage) : p.then(stage);
        }
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
        List<AtomicSystem> copies = new ArrayList<>();
        for (AtomicSystem s : systems) {
            copies.add(new AtomicSystem(s.id(), s.positions(), s.masses(), s.numbers(), s.cell()));
        }
        Map<Long, String> history = new TreeMap<>();
        p.sizer(Systems.withListRadius(model.cutoff())).batchCapacity(Capacity.of(3, 700, Long.MAX_VALUE)).samples(copies).refillEvery(2)
                .results(sink).hook(new Hook<>() {
                    @Override
                    public void onEvent(int stage, Event<AtomicSystem> e) {
                        if (e.kind() == Event.Kind.GRADUATED || e.left()) {
                            synchronized (history) {
                                history.merge(e.sample().id(), e.method() + ":" + e.steps(), (x, y) -> x + "," + y);
                            }
                        }
                    }
                });
        Summary<AtomicSystem> summary;
        try (Pipeline<AtomicSystem> pipeline = p) {
            summary = pipeline.run();
        }
        Map<Long, Result> out = new TreeMap<>();
        for (AtomicSystem s : sink.samples()) {
            out.put(s.id(), new Result(history.get(s.id()), s.energy(), s.positions(), s.forces(), s.virial(), s.cell().vectors(), null));
        }
        for (Event<AtomicSystem> q : summary.quarantined()) {
            out.put(q.sample().id(), new Result(null, Double.NaN, null, null, null, null, q.diagnosis()));
        }
        return out;
    }

    /// Runs `systems` through the pipeline on the CPU and on CUDA (each with its own `model`) and
    /// holds them to the same steps, energies to 1e-10, positions to 1e-9 Å and virials to 1e-10
    /// of their largest component.
    static void sameAsTheCpu(Supplier<Model> model, List<AtomicSystem> systems) {
        sameAsTheCpu(() -> CudaDevice.open(HostDriver.probe(), 0), model, systems);
    }

    /// As `sameAsTheCpu(model, systems)` on the CUDA device `device` opens.
    static void sameAsTheCpu(Supplier<CudaDevice> device, Supplier<Model> model, List<AtomicSystem> systems) {
        sameAsTheCpu(device, model, systems, PIPELINE, "fire:\\d+,langevin:12,nve:15,nvt:10");
    }

    /// The pipeline of the barostats and the cell relaxation: cells sheared, squeezed, let go, relaxed.
    static final String CELLS = "npt(T=500, P=20000, tdamp=50, pdamp=250, dt=2, steps=30, couple=tri) + nph(P=0, pdamp=250, dt=2, steps=20,"
            + " couple=aniso) | fire_cell(fmax=0.05, P=5000, steps=300) | fire2_cell(fmax=0.02, P=0, steps=300)";
    /// Each system's sub-stages' steps under `CELLS`.
    static final String CELL_STEPS = "npt:30,nph:20,fire_cell:\\d+,fire2_cell:\\d+";

    /// As above, through pipeline `spec`, each system's sub-stages and steps matching `steps`, and
    /// the final cells held to 1e-9 Å too.
    static void sameAsTheCpu(Supplier<CudaDevice> device, Supplier<Model> model, List<AtomicSystem> systems, String spec, String steps) {
        Map<Long, Result> cpu;
        try (CpuDevice d = new CpuDevice()) {
            cpu = run(d, x -> new CpuRelaxKernels(1), model.get(), systems, spec);
        }
        Map<Long, Result> cuda;
        try (CudaDevice d = device.get()) {
            cuda = run(d, x -> new CudaRelaxKernels(d), model.get(), systems, spec);
        }
        assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(systems.size());
        for (long id : cpu.keySet()) {
            Result c = cpu.get(id);
            Result g = cuda.get(id);
            assertThat(c.diagnosis()).as("system %d on the CPU", id).isNull();
            assertThat(g.diagnosis()).as("system %d on CUDA", id).isNull();
            assertThat(g.stages()).as("system %d: steps per sub-stage", id).isEqualTo(c.stages()).matches(steps);
            assertThat(Math.abs(g.energy() - c.energy()) / Math.abs(c.energy())).as("system %d: energy", id).isLessThan(1e-10);
            double worst = 0;
            for (int i = 0; i < c.positions().length; i++) {
                worst = Math.max(worst, Math.abs(g.positions()[i] - c.positions()[i]));
            }
            assertThat(worst).as("system %d: largest position difference (Å)", id).isLessThan(1e-9);
            for (int x = 0; x < 9; x++) {
                assertThat(Math.abs(g.cell()[x] - c.cell()[x])).as("system %d: cell component %d", id, x).isLessThan(1e-9);
            }
            assertThat(c.virial()).as("system %d: the CPU's virial", id).isNotNull();
            assertThat(g.virial()).as("system %d: the CUDA virial", id).isNotNull();
            double scale = 0;
            for (double w : c.virial()) {
                scale = Math.max(scale, Math.abs(w));
            }
            for (int x = 0; x < 9; x++) {
                assertThat(Math.abs(g.virial()[x] - c.virial()[x])).as("system %d: virial component %d", id, x).isLessThanOrEqualTo(1e-10 * scale);
            }
        }
    }

}
