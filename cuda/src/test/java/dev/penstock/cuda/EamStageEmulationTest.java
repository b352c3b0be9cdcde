package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.device.RelaxKernels;
import dev.penstock.atoms.io.Elements;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.potential.Tersoff;
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
import dev.penstock.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/// EAM on a device stage on CUDA (`CudaEam`: `eam.cu`'s passes over the packed batch), through
/// the host emulation of the driver, against the same pipeline on `CpuDevice` (the model over
/// each system's rows): every system takes the same steps in every sub-stage, ends at the same
/// energy to 1e-10, the same virial to 1e-10 of its largest component and the same positions to 1e-9 Å (a full list gathered per atom against the
/// CPU's half list: rounding apart), in a chained pipeline with a fused stage, for funcfl,
/// setfl (an alloy, a triclinic cell) and Finnis–Sinclair files, free and periodic systems.
class EamStageEmulationTest {
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");
    private static final String PIPELINE = "fire(fmax=0.05, steps=150) + langevin(T=500, dt=2, steps=12) | nve(dt=2, steps=15)";
    private static final long SEED = 23;

    private static Path potential(String name) {
        Path p = POTENTIALS.resolve(name);
        assumeTrue(Files.isReadable(p) || Ci.required(), "LAMMPS's potential files (lammps-data) are not installed");
        return p;
    }

    /// A cluster of the `n` fcc sites nearest the origin (nearest neighbours `nearest` Å), off
    /// them by up to ±0.1 Å, a fraction `mix` of its atoms `z[1]`, the rest `z[0]`.
    private static AtomicSystem cluster(long id, int n, double nearest, int[] z, double mix, long seed) {
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
    private static AtomicSystem crystal(long id, int k, double a, double xy, int[] z, double mix, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        int n = 4 * k * k * k;
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
    private record Result(String stages, double energy, double[] positions, double[] virial, String diagnosis) {
    }

    private static Map<Long, Result> run(Device device, Function<Device, RelaxKernels> kernels, Model model, List<AtomicSystem> systems) {
        Pipeline<AtomicSystem> p = null;
        for (List<PipelineSpec.Call> calls : PipelineSpec.parse(PIPELINE)) {
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
            out.put(s.id(), new Result(history.get(s.id()), s.energy(), s.positions(), s.virial(), null));
        }
        for (Event<AtomicSystem> q : summary.quarantined()) {
            out.put(q.sample().id(), new Result(null, Double.NaN, null, null, q.diagnosis()));
        }
        return out;
    }

    private static void sameAsTheCpu(Eam model, List<AtomicSystem> systems) {
        Map<Long, Result> cpu;
        try (CpuDevice d = new CpuDevice()) {
            cpu = run(d, x -> new CpuRelaxKernels(1), model.fresh(), systems);
        }
        Map<Long, Result> cuda;
        try (CudaDevice d = CudaDevice.open(HostDriver.probe(), 0)) {
            cuda = run(d, x -> new CudaRelaxKernels(d), model.fresh(), systems);
        }
        assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(systems.size());
        for (long id : cpu.keySet()) {
            Result c = cpu.get(id);
            Result g = cuda.get(id);
            assertThat(c.diagnosis()).as("system %d on the CPU", id).isNull();
            assertThat(g.diagnosis()).as("system %d on CUDA", id).isNull();
            assertThat(g.stages()).as("system %d: steps per sub-stage", id).isEqualTo(c.stages()).matches("fire:\\d+,langevin:12,nve:15");
            assertThat(Math.abs(g.energy() - c.energy()) / Math.abs(c.energy())).as("system %d: energy", id).isLessThan(1e-10);
            double worst = 0;
            for (int i = 0; i < c.positions().length; i++) {
                worst = Math.max(worst, Math.abs(g.positions()[i] - c.positions()[i]));
            }
            assertThat(worst).as("system %d: largest position difference (Å)", id).isLessThan(1e-9);
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

    @Test
    void copperClustersAndABoxOnCudaTakeTheCpuStepsToRounding() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        sameAsTheCpu(cu, List.of(cluster(0, 13, 2.55, new int[] {29, 29}, 0, 1), cluster(1, 55, 2.55, new int[] {29, 29}, 0, 2),
                crystal(2, 3, 3.615, 0, new int[] {29, 29}, 0, 3), cluster(3, 38, 2.55, new int[] {29, 29}, 0, 4)));
    }

    @Test
    void anAlloyInATriclinicCellAndAFinnisSinclairClusterOnCudaTakeTheCpuSteps() throws Exception {
        sameAsTheCpu(Eam.read(potential("CuNi.eam.alloy")), List.of(crystal(10, 3, 3.56, 1.3, new int[] {29, 28}, 0.4, 6),
                cluster(11, 79, 2.5, new int[] {29, 28}, 0.5, 7)));
        sameAsTheCpu(Eam.read(potential("CuZr_mm.eam.fs")), List.of(cluster(20, 55, 2.7, new int[] {29, 40}, 0.3, 8)));
    }

    @Test
    void aSystemOnCudaEndsWithTheSameBitsAloneAsInABatch() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        List<AtomicSystem> systems = List.of(cluster(0, 13, 2.55, new int[] {29, 29}, 0, 1), crystal(1, 3, 3.615, 0.9, new int[] {29, 29}, 0, 3),
                cluster(2, 55, 2.55, new int[] {29, 29}, 0, 2));
        try (CudaDevice d = CudaDevice.open(HostDriver.probe(), 0)) {
            Map<Long, Result> together = run(d, x -> new CudaRelaxKernels(d), cu.fresh(), systems);
            for (AtomicSystem s : systems) {
                Result alone = run(d, x -> new CudaRelaxKernels(d), cu.fresh(), List.of(s)).get(s.id());
                Result batched = together.get(s.id());
                assertThat(alone.stages()).as("system %d", s.id()).isEqualTo(batched.stages());
                assertThat(alone.energy()).as("system %d: energy", s.id()).isEqualTo(batched.energy());
                assertThat(alone.positions()).as("system %d: positions", s.id()).isEqualTo(batched.positions());
            }
        }
    }

    @Test
    void aModelTheCudaKernelsDoNotRunIsRefusedWhenTheBatchIsMadeNamingIt() throws Exception {
        Tersoff si = Tersoff.read(potential("Si.tersoff"));
        try (CudaDevice d = CudaDevice.open(HostDriver.probe(), 0)) {
            Stage<AtomicSystem> stage = DeviceStages.stage(PipelineSpec.parse("fire(fmax=0.05)").getFirst(), si, d, x -> new CudaRelaxKernels(d),
                    Double.POSITIVE_INFINITY, SEED);
            Pipeline<AtomicSystem> p = Pipeline.of(stage).sizer(Systems.withListRadius(si.cutoff())).batchCapacity(Capacity.of(2, 100, Long.MAX_VALUE))
                    .samples(List.of(cluster(0, 13, 2.35, new int[] {14, 14}, 0, 1))).results(MemorySink.unbounded("r"));
            try (p) {
                assertThatThrownBy(p::run).hasStackTraceContaining("its kernels do not run tersoff(file=Si.tersoff)");
            }
        }
    }
}
