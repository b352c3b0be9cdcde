package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.device.PairSummingKernels;
import dev.penstock.atoms.device.PackedRelax;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/// The in-flight relaxation on a CUDA device against the same on `CpuDevice`: the same steps,
/// energies to 1e-10 (bit for bit where `bitExact`), an overlapping system taken out there too.
/// Run on the host emulation of the driver by `RelaxKernelsEmulationTest` and on a GPU by
/// `RelaxKernelsGpuTest`.
abstract class RelaxKernelsChecks {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);
    private static final Convergence RULE = Convergence.of(0.01, 2000);

    private static List<AtomicSystem> clusters(int count) {
        SplittableRandom rnd = new SplittableRandom(31);
        double[] noise = {0.02, 0.1, 0.2};
        List<AtomicSystem> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            out.add(Clusters.perturbed(k, 13 + rnd.nextInt(100), noise[rnd.nextInt(3)], 500 + k));
        }
        System.arraycopy(out.get(5).positions(), 6, out.get(5).positions(), 9, 3); // atoms 2 and 3 overlap
        return out;
    }

    /// The device under test.
    abstract CudaDevice openDevice();

    /// Whether the device must give the CPU's numbers bit for bit (the emulation does; a GPU
    /// should, as the PTX has no fused multiply-adds, and is held to 1e-10).
    abstract boolean bitExact();

    private static String state(AtomicSystem s) {
        return s.energy() + " " + Arrays.toString(s.positions()) + " " + Arrays.toString(s.forces()) + " " + Arrays.toString(s.velocities());
    }

    /// The most steps a batch below takes before every system has left (far above any budget
    /// here): past it the batch is stuck — a kernel that stopped moving systems fails, not hangs.
    private static final int MOST_STEPS = 20_000;

    /// Steps `b` until every system of `pending` (and those `arriving` adds before a step, by its
    /// index) has been admitted and has left, each step's events to `events`, `after` told each
    /// step's index after it; then closes `b`.
    private static void drive(dev.penstock.stage.StageBatch<AtomicSystem> b, List<AtomicSystem> pending,
                              java.util.function.IntFunction<List<AtomicSystem>> arriving,
                              java.util.function.Consumer<dev.penstock.stage.Event<AtomicSystem>> events,
                              java.util.function.IntConsumer after) {
        List<AtomicSystem> waiting = new ArrayList<>(pending);
        for (int step = 0; !waiting.isEmpty() || b.size() > 0; step++) {
            assertThat(step).as("steps before every system left the batch").isLessThan(MOST_STEPS);
            waiting.addAll(arriving.apply(step));
            waiting = new ArrayList<>(b.admit(waiting, e -> { }));
            b.step(events);
            after.accept(step);
        }
        b.close();
    }

    /// Each leaving system's steps, final state and diagnosis into `out`, by id.
    private static java.util.function.Consumer<dev.penstock.stage.Event<AtomicSystem>> leavers(java.util.Map<Long, String> out) {
        return e -> {
            if (e.left()) {
                out.put(e.sample().id(), e.steps() + " " + state(e.sample()) + " " + e.diagnosis());
            }
        };
    }

    @Test
    void theCudaRelaxationGivesEverySystemTheCpuStepsAndEnergies() {
        relaxesAsTheCpu(LJ);
    }

    @Test
    void theCudaMorseRelaxationGivesEverySystemTheCpuStepsAndEnergies() {
        relaxesAsTheCpu(new dev.penstock.atoms.potential.Morse(1, 3, 1.1, 2.5)); // its exponential PortableMath's on both
    }

    /// An fcc crystal of `cells`³ cells (nearest neighbours 1.1σ) off its sites by up to ±`noise`,
    /// in the cell of lattice rows `shear`·(the cube's side) (row after row), periodic along `pbc`.
    private static AtomicSystem crystal(long id, int cells, double noise, double[] shear, boolean[] pbc) {
        double a = 1.1 * Math.sqrt(2);
        SplittableRandom rnd = new SplittableRandom(40 + id);
        int atoms = 4 * cells * cells * cells;
        double[] r = new double[3 * atoms];
        int i = 0;
        for (int x = 0; x < cells; x++) {
            for (int y = 0; y < cells; y++) {
                for (int z = 0; z < cells; z++) {
                    for (double[] b : new double[][] {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}}) {
                        r[i++] = (x + b[0]) * a + rnd.nextDouble(-noise, noise);
                        r[i++] = (y + b[1]) * a + rnd.nextDouble(-noise, noise);
                        r[i++] = (z + b[2]) * a + rnd.nextDouble(-noise, noise);
                    }
                }
            }
        }
        double[] m = new double[atoms];
        Arrays.fill(m, 1);
        double[] vectors = shear.clone();
        for (int e = 0; e < 9; e++) {
            vectors[e] *= cells * a;
        }
        return new AtomicSystem(id, r, m, new int[atoms], dev.penstock.atoms.system.Cell.of(vectors, pbc));
    }

    private static final double[] CUBE = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    private static final boolean[] BULK = {true, true, true};

    /// Three periodic cubes of 4³ fcc cells (256 atoms, 6.2σ a side: more than twice the cutoff).
    private static List<AtomicSystem> boxes() {
        return List.of(crystal(0, 4, 0.08, CUBE, BULK), crystal(1, 4, 0.08, CUBE, BULK), crystal(2, 4, 0.08, CUBE, BULK));
    }

    /// Cells the kernels scan images for: a cube shorter than twice the cutoff, one shorter than
    /// the cutoff (an atom meets its own images), a sheared triclinic cell and a sheared slab.
    private static List<AtomicSystem> cells() {
        return List.of(crystal(0, 3, 0.08, CUBE, BULK), crystal(1, 1, 0.05, CUBE, BULK),
                crystal(2, 3, 0.06, new double[] {1, 0, 0, 0.4, 1, 0, -0.3, 0.2, 1}, BULK),
                crystal(3, 3, 0.05, new double[] {1, 0, 0, 0.5, 1, 0, 0, 0, 2}, new boolean[] {true, true, false}));
    }

    @Test
    void theCudaRelaxationOfPeriodicBoxesGivesEverySystemTheCpuStepsAndEnergies() {
        periodicAsTheCpu(RelaxKernelsChecks::boxes);
    }

    @Test
    void theCudaRelaxationOfSmallAndTriclinicCellsScansTheCpuImagesInTheCpuOrder() {
        periodicAsTheCpu(RelaxKernelsChecks::cells);
    }

    private void periodicAsTheCpu(java.util.function.Supplier<List<AtomicSystem>> systems) {
        List<AtomicSystem> onCpu = systems.get();
        List<PackedRelax.Outcome> cpu;
        try (CpuDevice d = new CpuDevice(); PackedRelax r = new PackedRelax(d, PairSummingKernels.summingPairs(2), LJ, RULE, 4, 600)) {
            cpu = r.relax(onCpu);
        }
        List<AtomicSystem> onCuda = systems.get();
        List<PackedRelax.Outcome> cuda;
        try (CudaDevice d = openDevice(); PackedRelax r = new PackedRelax(d, new CudaRelaxKernels(d), LJ, RULE, 4, 600)) {
            cuda = r.relax(onCuda);
        }
        for (int k = 0; k < onCpu.size(); k++) {
            assertThat(cuda.get(k).steps()).as("cell %d steps", k).isEqualTo(cpu.get(k).steps()).isPositive();
            assertThat(Math.abs(cuda.get(k).energy() - cpu.get(k).energy()) / Math.abs(cpu.get(k).energy())).isLessThanOrEqualTo(1e-10);
            if (bitExact()) {
                assertThat(state(onCuda.get(k))).as("cell %d", k).isEqualTo(state(onCpu.get(k)));
            }
        }
    }

    private void relaxesAsTheCpu(dev.penstock.atoms.potential.PairPotential model) {
        List<AtomicSystem> onCpu = clusters(24);
        List<PackedRelax.Outcome> cpu;
        try (CpuDevice d = new CpuDevice(); PackedRelax r = new PackedRelax(d, PairSummingKernels.summingPairs(2), model, RULE, 16, 600)) {
            cpu = r.relax(onCpu);
        }
        List<AtomicSystem> onCuda = clusters(24);
        List<PackedRelax.Outcome> cuda;
        try (CudaDevice d = openDevice(); PackedRelax r = new PackedRelax(d, new CudaRelaxKernels(d), model, RULE, 16, 600)) {
            cuda = r.relax(onCuda);
            assertThat(r.figures().batchSteps()).isPositive();
        }
        assertThat(cuda.get(5).diagnosis()).contains("system 5").contains("overlap");
        for (int k = 0; k < onCpu.size(); k++) {
            PackedRelax.Outcome c = cuda.get(k);
            PackedRelax.Outcome h = cpu.get(k);
            assertThat(c.steps()).as("system %d steps", k).isEqualTo(h.steps());
            assertThat(c.converged()).isEqualTo(h.converged());
            if (k != 5) {
                assertThat(Math.abs(c.energy() - h.energy()) / Math.abs(h.energy())).as("system %d energy", k).isLessThanOrEqualTo(1e-10);
            }
            if (bitExact()) {
                assertThat(c).isEqualTo(h);
                assertThat(state(onCuda.get(k))).as("system %d", k).isEqualTo(state(onCpu.get(k)));
            }
        }
    }

    /// `count` clusters relaxed a little, with seeded velocities: NVE input.
    private static List<AtomicSystem> warm(int count) {
        List<AtomicSystem> out = clusters(count);
        out.remove(5); // the overlapping one
        SplittableRandom rnd = new SplittableRandom(9);
        for (AtomicSystem s : out) {
            double[] v = s.velocities();
            for (int i = 0; i < v.length; i++) {
                v[i] = 0.3 * rnd.nextGaussian();
            }
        }
        return out;
    }

    /// Velocity Verlet through a device stage's batch (`DeviceStages.nve`, 150 steps) on `device`:
    /// each system's final state by id.
    private static java.util.Map<Long, String> nve(dev.penstock.device.Device device, java.util.function.Function<dev.penstock.device.Device,
            dev.penstock.atoms.device.RelaxKernels> kernels) {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        dev.penstock.stage.StageBatch<AtomicSystem> b = new dev.penstock.stage.StageBatch<>(
                dev.penstock.atoms.device.DeviceStages.nve(0.002, 150, LJ, device, kernels, 0.5), dev.penstock.atoms.stage.Systems.withListRadius(2.8),
                dev.penstock.stage.Capacity.of(8, 400, Long.MAX_VALUE));
        List<AtomicSystem> pending = warm(18);
        pending.get(3).velocities()[0] = 400; // flung: quarantined by the step kernel on both devices
        drive(b, pending, step -> List.of(), leavers(out), step -> { });
        return out;
    }

    /// A Nosé–Hoover chain (`DeviceStages.nvt`, 150 steps at kT 0.8, tdamp 0.2, a chain of 4, two
    /// loops) through a device stage's batch on `device`: each system's final state and conserved
    /// quantity by id.
    private static java.util.Map<Long, String> nvt(dev.penstock.device.Device device, java.util.function.Function<dev.penstock.device.Device,
            dev.penstock.atoms.device.RelaxKernels> kernels) {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        dev.penstock.stage.StageBatch<AtomicSystem> b = new dev.penstock.stage.StageBatch<>(dev.penstock.atoms.device.DeviceStages.nvt(
                new dev.penstock.atoms.device.SubStage.NoseHoover(0.002, 0.8, 0.2, 4, 2, 150), LJ, device, kernels, 0.5),
                dev.penstock.atoms.stage.Systems.withListRadius(2.8), dev.penstock.stage.Capacity.of(8, 400, Long.MAX_VALUE));
        List<AtomicSystem> pending = warm(18);
        pending.get(3).velocities()[0] = 400; // flung: quarantined by the step kernel on both devices
        drive(b, pending, step -> List.of(), e -> {
            leavers(out).accept(e);
            if (e.left()) {
                out.merge(e.sample().id(), " " + e.sample().info().get("conserved_energy"), String::concat);
            }
        }, step -> { });
        return out;
    }

    /// A device stage's batch of `steps` NVE steps (dt 0.004, atoms moving at most 0.5 σ a step)
    /// with room for `systems` systems and 4,000 atoms, on kernels from `kernels`, each kept in `made`.
    private static dev.penstock.stage.StageBatch<AtomicSystem> nveBatch(dev.penstock.device.Device device,
            java.util.function.Function<dev.penstock.device.Device, dev.penstock.atoms.device.RelaxKernels> kernels,
            List<dev.penstock.atoms.device.RelaxKernels> made, long steps, long systems) {
        return new dev.penstock.stage.StageBatch<>(dev.penstock.atoms.device.DeviceStages.nve(0.004, steps, LJ, device, d -> {
            dev.penstock.atoms.device.RelaxKernels k = kernels.apply(d);
            made.add(k);
            return k;
        }, 0.5), dev.penstock.atoms.stage.Systems.withListRadius(2.8), dev.penstock.stage.Capacity.of(systems, 4000, Long.MAX_VALUE));
    }

    /// Two large systems — a periodic fcc box of 1,372 atoms (nearest images) and a free fcc
    /// block of 1,372 — among small clusters, hot enough that atoms move half the skin, one small
    /// system before them flung (it leaves at step 1: the large ones move rows): 120 NVE steps in a
    /// device stage's batch. Each final state by id; `lists` gets each large system's atoms'
    /// listed-partner counts from the kernels (empty for kernels without lists).
    private static java.util.Map<Long, String> largeNve(dev.penstock.device.Device device,
            java.util.function.Function<dev.penstock.device.Device, dev.penstock.atoms.device.RelaxKernels> kernels, List<int[]> lists) {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        List<dev.penstock.atoms.device.RelaxKernels> made = new ArrayList<>();
        dev.penstock.stage.StageBatch<AtomicSystem> b = nveBatch(device, kernels, made, 120, 8);
        List<AtomicSystem> pending = new ArrayList<>(warm(7).subList(0, 3));
        pending.get(1).velocities()[0] = 400; // flung at step 1
        pending.add(2, lattice(100, true));
        pending.add(4, lattice(101, false));
        SplittableRandom rnd = new SplittableRandom(13);
        for (AtomicSystem s : pending.subList(2, 5)) {
            double[] v = s.velocities();
            for (int i = 0; i < v.length; i++) {
                v[i] = 1.5 * rnd.nextGaussian();
            }
        }
        drive(b, pending, step -> List.of(), leavers(out), step -> {
            if (lists.isEmpty() && b.size() == 4 && made.getFirst() instanceof CudaRelaxKernels cuda) { // after the flung one left: 2 small, 2 large
                lists.add(cuda.listCounts(2 * 1372 + 300));
            }
        });
        return out;
    }

    /// 7³ fcc cells of 1.6 σ (1,372 atoms), each atom off its site by up to 0.05 σ: periodic (a
    /// box of 11.2 σ, nearest images) or free.
    private static AtomicSystem lattice(long id, boolean periodic) {
        SplittableRandom rnd = new SplittableRandom(id);
        int k = 7;
        double a = 1.6;
        double[] r = new double[3 * 4 * k * k * k];
        double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        int p = 0;
        for (int x = 0; x < k; x++) {
            for (int y = 0; y < k; y++) {
                for (int z = 0; z < k; z++) {
                    for (double[] b : basis) {
                        r[p++] = a * (x + b[0]) + rnd.nextDouble(-0.05, 0.05);
                        r[p++] = a * (y + b[1]) + rnd.nextDouble(-0.05, 0.05);
                        r[p++] = a * (z + b[2]) + rnd.nextDouble(-0.05, 0.05);
                    }
                }
            }
        }
        int n = r.length / 3;
        double[] m = new double[n];
        Arrays.fill(m, 1);
        double side = a * k;
        return periodic ? new AtomicSystem(id, r, m, new int[n], new double[] {side, side, side}, new boolean[] {true, true, true})
                : AtomicSystem.free(id, r);
    }

    /// Large free and nearest-image systems are summed over Verlet lists on the device
    /// (`relax.cu`'s relax_list_*: partners within 1.12 cutoffs, rebuilt when an atom moved half
    /// the skin or the system moved rows) and take the CPU's trajectory, bit for bit where
    /// `bitExact`: the lists leave out only partners beyond the cutoff.
    @Test
    void largeSystemsSumTheirVerletListsOnTheDeviceAndTakeTheCpuTrajectory() {
        java.util.Map<Long, String> cpu;
        try (CpuDevice d = new CpuDevice()) {
            cpu = largeNve(d, x -> PairSummingKernels.summingPairs(2), new ArrayList<>());
        }
        java.util.Map<Long, String> cuda;
        List<int[]> lists = new ArrayList<>();
        try (CudaDevice d = openDevice()) {
            cuda = largeNve(d, x -> new CudaRelaxKernels(d), lists);
        }
        assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(5);
        assertThat(lists).hasSize(1);
        // rows after the flung system left: a small cluster, then the two large systems
        int[] counts = lists.getFirst();
        long listed = Arrays.stream(counts).filter(c -> c > 20 && c <= CudaRelaxKernels.LIST_MAX).count();
        assertThat(listed).as("atoms summed over lists of 21..256 partners").isGreaterThanOrEqualTo(2 * 1372 - 10);
        for (long id : cpu.keySet()) {
            String[] c = cuda.get(id).split(" ", 3);
            String[] h = cpu.get(id).split(" ", 3);
            assertThat(c[0]).as("system %d steps", id).isEqualTo(h[0]);
            double ec = Double.parseDouble(c[1]);
            double eh = Double.parseDouble(h[1]);
            if (Double.isFinite(eh)) {
                assertThat(Math.abs(ec - eh) / Math.abs(eh)).as("system %d energy", id).isLessThanOrEqualTo(1e-10);
            }
            if (bitExact()) {
                assertThat(cuda.get(id)).as("system %d", id).isEqualTo(cpu.get(id));
            }
        }
    }

    /// Twenty small warm clusters (over 1,024 atoms together) through 60 NVE steps in a device
    /// stage's batch, a large free block (1,372 atoms) admitted at step 10: each final state by
    /// id; `seen` gets, at steps 5 and 12, whether the CUDA kernels kept lists and for how many
    /// atoms their list memory is made.
    private static java.util.Map<Long, String> smallThenLarge(dev.penstock.device.Device device,
            java.util.function.Function<dev.penstock.device.Device, dev.penstock.atoms.device.RelaxKernels> kernels, List<String> seen) {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        List<dev.penstock.atoms.device.RelaxKernels> made = new ArrayList<>();
        dev.penstock.stage.StageBatch<AtomicSystem> b = nveBatch(device, kernels, made, 60, 64);
        List<AtomicSystem> pending = warm(21);
        assertThat(pending.stream().mapToInt(AtomicSystem::atoms).sum()).as("the small clusters' atoms").isGreaterThan(CudaRelaxKernels.LIST_ATOMS);
        drive(b, pending, step -> step == 10 ? List.of(lattice(102, false)) : List.of(), leavers(out), step -> {
            if ((step == 5 || step == 12) && made.getFirst() instanceof CudaRelaxKernels cuda) {
                seen.add("step " + step + ": " + cuda.listing() + " " + cuda.listMemoryAtoms());
            }
        });
        return out;
    }

    /// A batch of small systems keeps no Verlet lists however many atoms it holds — its stage says
    /// how large its largest system is (`RelaxKernels.largestSystem`), so none of the seven list
    /// kernels runs and no list memory is made for the batch — and a large system that comes later
    /// is listed from its first evaluation, with the CPU's trajectory.
    @Test
    void aBatchOfSmallSystemsKeepsNoListsUntilALargeOneComes() {
        java.util.Map<Long, String> cpu;
        try (CpuDevice d = new CpuDevice()) {
            cpu = smallThenLarge(d, x -> PairSummingKernels.summingPairs(2), new ArrayList<>());
        }
        java.util.Map<Long, String> cuda;
        List<String> seen = new ArrayList<>();
        try (CudaDevice d = openDevice()) {
            cuda = smallThenLarge(d, x -> new CudaRelaxKernels(d), seen);
        }
        assertThat(seen.getFirst()).isEqualTo("step 5: false 1");
        assertThat(seen.get(1)).startsWith("step 12: true ");
        assertThat(Integer.parseInt(seen.get(1).substring("step 12: true ".length()))).isGreaterThanOrEqualTo(1372);
        assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(21);
        for (long id : cpu.keySet()) {
            String[] c = cuda.get(id).split(" ", 3);
            String[] h = cpu.get(id).split(" ", 3);
            assertThat(c[0]).as("system %d steps", id).isEqualTo(h[0]);
            assertThat(Math.abs(Double.parseDouble(c[1]) - Double.parseDouble(h[1])) / Math.abs(Double.parseDouble(h[1])))
                    .as("system %d energy", id).isLessThanOrEqualTo(1e-10);
            if (bitExact()) {
                assertThat(cuda.get(id)).as("system %d", id).isEqualTo(cpu.get(id));
            }
        }
    }

    /// `fire + fire_mw + fire2 + langevin + nve` fused in one device stage's batch on `device`:
    /// each system's sub-stage exits ("fire:N fire-mw:M fire2:K langevin:30 nve:40") and final
    /// state by id.
    private static java.util.Map<Long, String> fused(dev.penstock.device.Device device, java.util.function.Function<dev.penstock.device.Device,
            dev.penstock.atoms.device.RelaxKernels> kernels) {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        var calls = dev.penstock.atoms.stage.PipelineSpec.parse("fire(fmax=0.05, steps=300) + fire_mw(fmax=0.02, steps=300)"
                + " + fire2(fmax=0.01, steps=300) + langevin(T=300, dt=0.05, steps=30, friction=0.05) + nve(dt=0.05, steps=40)").getFirst();
        dev.penstock.stage.StageBatch<AtomicSystem> b = new dev.penstock.stage.StageBatch<>(
                dev.penstock.atoms.device.DeviceStages.stage(calls, LJ, device, kernels, Double.POSITIVE_INFINITY, 1),
                dev.penstock.atoms.stage.Systems.withListRadius(2.8), dev.penstock.stage.Capacity.of(8, 400, Long.MAX_VALUE));
        List<AtomicSystem> pending = warm(14);
        for (AtomicSystem s : pending) {
            Arrays.fill(s.masses(), 39.948); // fire_mw divides by them
        }
        drive(b, pending, step -> List.of(), e -> {
            if (e.kind() == dev.penstock.stage.Event.Kind.GRADUATED || e.left()) {
                out.merge(e.sample().id(), e.method() + ":" + e.steps() + (e.left() ? " " + state(e.sample()) : ""), (x, y) -> x + " " + y);
            }
        }, step -> { });
        return out;
    }

    @Test
    void theCudaFusedSubStagesWithLangevinGiveEverySystemTheCpuStepsAndNumbers() {
        java.util.Map<Long, String> cpu;
        try (CpuDevice d = new CpuDevice()) {
            cpu = fused(d, x -> PairSummingKernels.summingPairs(1));
        }
        java.util.Map<Long, String> cuda;
        try (CudaDevice d = openDevice()) {
            cuda = fused(d, x -> new CudaRelaxKernels(d));
        }
        assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(13);
        for (long id : cpu.keySet()) {
            String[] c = cuda.get(id).split(" ", 7);
            String[] h = cpu.get(id).split(" ", 7);
            String steps = String.join(" ", java.util.Arrays.copyOf(c, 5));
            assertThat(steps).as("system %d sub-stage steps", id).isEqualTo(String.join(" ", java.util.Arrays.copyOf(h, 5)))
                    .matches("fire:\\d+ fire-mw:\\d+ fire2:\\d+ langevin:30 nve:40");
            double ec = Double.parseDouble(c[5]);
            double eh = Double.parseDouble(h[5]);
            assertThat(Math.abs(ec - eh) / Math.abs(eh)).as("system %d energy", id).isLessThanOrEqualTo(1e-10);
            if (bitExact()) {
                assertThat(cuda.get(id)).as("system %d", id).isEqualTo(cpu.get(id));
            }
        }
    }

    /// `systems` through a barostat stage of `b` (LJ, its batch on `device`): each leaver's steps,
    /// energy, cell, conserved quantity and pressure by id.
    private static java.util.Map<Long, String> barostat(dev.penstock.device.Device device, dev.penstock.atoms.device.SubStage.Barostat b,
            List<AtomicSystem> systems, java.util.function.Function<dev.penstock.device.Device, dev.penstock.atoms.device.RelaxKernels> kernels) {
        return barostat(device, b, systems, kernels, step -> { });
    }

    /// As above, `after` told each step's index after it.
    private static java.util.Map<Long, String> barostat(dev.penstock.device.Device device, dev.penstock.atoms.device.SubStage.Barostat b,
            List<AtomicSystem> systems, java.util.function.Function<dev.penstock.device.Device, dev.penstock.atoms.device.RelaxKernels> kernels,
            java.util.function.IntConsumer after) {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        dev.penstock.stage.StageBatch<AtomicSystem> batch = new dev.penstock.stage.StageBatch<>(dev.penstock.atoms.device.DeviceStages.barostat(
                b, LJ, device, kernels, 0.5), dev.penstock.atoms.stage.Systems.withListRadius(2.8),
                dev.penstock.stage.Capacity.of(8, 4000, Long.MAX_VALUE));
        drive(batch, systems, step -> List.of(), e -> {
            if (e.left()) {
                AtomicSystem s = e.sample();
                out.put(s.id(), e.steps() + " " + s.energy() + " " + Arrays.toString(s.cell().vectors()) + " " + s.info().get("conserved_energy")
                        + " " + dev.penstock.atoms.stage.History.pressure(s) + " " + e.diagnosis());
            }
        }, after);
        batch.close();
        return out;
    }

    /// The barostat's leavers on CUDA (`cuda`) as on the CPU (`cpu`): `systems` of them, each after
    /// `steps` steps, its energy, the cell's nine, conserved quantity and pressure within 1e-9.
    private static void sameTrajectories(String name, java.util.Map<Long, String> cpu, java.util.Map<Long, String> cuda, int systems,
                                         int steps) {
        assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(systems);
        for (long id : cpu.keySet()) {
            String[] c = cuda.get(id).replace("[", "").replace("]", "").replace(",", "").split(" ");
            String[] h = cpu.get(id).replace("[", "").replace("]", "").replace(",", "").split(" ");
            assertThat(c[0]).as("%s, system %d steps", name, id).isEqualTo(h[0]).isEqualTo(Integer.toString(steps));
            for (int q = 1; q < 13; q++) { // energy, the cell's nine, conserved quantity, pressure
                double x = Double.parseDouble(c[q]);
                double y = Double.parseDouble(h[q]);
                assertThat(Math.abs(x - y)).as("%s, system %d, value %d: %s against the CPU's %s", name, id, q, x, y)
                        .isLessThanOrEqualTo(1e-9 * Math.max(1, Math.abs(y)));
            }
        }
    }

    /// `npt` (iso, tri) and `nph` on CUDA (`relax_mtk`, the pair kernels' virial and images from
    /// the rewritten cell columns) against the CPU's kernels: every system's steps, energy, cell,
    /// conserved quantity and pressure within 1e-9 after 120 steps of sheared LJ crystals (EAM, SNAP
    /// and ML-IAP: `EamStageChecks`, `SnapStageChecks`).
    @Test
    void theCudaBarostatGivesEverySystemTheCpuTrajectory() {
        dev.penstock.atoms.device.SubStage.Barostat[] runs = {
            new dev.penstock.atoms.device.SubStage.Barostat(0.004, true, 0.7, 0.4, 3, 1, 0,
                    new dev.penstock.atoms.integrate.Mtk.Settings(dev.penstock.atoms.integrate.Mtk.ISO, 0.5, 1 / 2.0, 3), 120),
            new dev.penstock.atoms.device.SubStage.Barostat(0.004, true, 0.7, 0.4, 3, 1, 0,
                    new dev.penstock.atoms.integrate.Mtk.Settings(dev.penstock.atoms.integrate.Mtk.TRI, 0.5, 1 / 2.0, 3), 120),
            new dev.penstock.atoms.device.SubStage.Barostat(0.004, false, 0, 1, 1, 1, 0,
                    new dev.penstock.atoms.integrate.Mtk.Settings(dev.penstock.atoms.integrate.Mtk.ANISO, -0.2, 1 / 2.0, 2), 120)};
        for (dev.penstock.atoms.device.SubStage.Barostat b : runs) {
            java.util.Map<Long, String> cpu;
            try (CpuDevice d = new CpuDevice()) {
                cpu = barostat(d, b, dev.penstock.atoms.device.BarostatDeviceStageTest.crystals(6, 21), x -> new dev.penstock.atoms.device.CpuRelaxKernels(1));
            }
            java.util.Map<Long, String> cuda;
            try (CudaDevice d = openDevice()) {
                cuda = barostat(d, b, dev.penstock.atoms.device.BarostatDeviceStageTest.crystals(6, 21), x -> new CudaRelaxKernels(d));
            }
            sameTrajectories(b.name(), cpu, cuda, 6, 120);
        }
    }

    /// A barostat over large boxes (1,372 atoms: the pair kernels' Verlet lists, which follow the
    /// changing cell by `relax_list_check`'s rule) beside two small crystals: `npt` iso and `nph`
    /// aniso under a pressure far from the boxes', so that they strain by percents while hot atoms
    /// move — every system's steps, energy, cell, conserved quantity and pressure within 1e-9 of
    /// the CPU's kernels (whose lists follow the cell by `NeighborList.update`'s rule) after 150
    /// steps, and the large boxes summed over lists all along.
    @Test
    void largeBoxesUnderABarostatKeepTheirVerletListsAndTheCpuTrajectory() {
        dev.penstock.atoms.device.SubStage.Barostat[] runs = {
            new dev.penstock.atoms.device.SubStage.Barostat(0.004, true, 1.2, 0.4, 3, 1, 0,
                    new dev.penstock.atoms.integrate.Mtk.Settings(dev.penstock.atoms.integrate.Mtk.ISO, 1.0, 1 / 0.4, 3), 150),
            new dev.penstock.atoms.device.SubStage.Barostat(0.004, false, 0, 1, 1, 1, 0,
                    new dev.penstock.atoms.integrate.Mtk.Settings(dev.penstock.atoms.integrate.Mtk.ANISO, 30, 1 / 0.4, 2), 150)};
        for (dev.penstock.atoms.device.SubStage.Barostat b : runs) {
            java.util.function.Supplier<List<AtomicSystem>> systems = () -> {
                List<AtomicSystem> out = new ArrayList<>(dev.penstock.atoms.device.BarostatDeviceStageTest.crystals(2, 29));
                out.add(1, lattice(300, true));
                double[] v = out.get(1).velocities();
                SplittableRandom rnd = new SplittableRandom(17);
                for (int i = 0; i < v.length; i++) {
                    v[i] = 1.2 * rnd.nextGaussian();
                }
                return out;
            };
            java.util.Map<Long, String> cpu;
            try (CpuDevice d = new CpuDevice()) {
                cpu = barostat(d, b, systems.get(), x -> new dev.penstock.atoms.device.CpuRelaxKernels(1));
            }
            java.util.Map<Long, String> cuda;
            List<Boolean> listing = new ArrayList<>();
            try (CudaDevice d = openDevice()) {
                CudaRelaxKernels[] made = new CudaRelaxKernels[1];
                cuda = barostat(d, b, systems.get(), x -> made[0] = new CudaRelaxKernels(d), step -> {
                    if (step < 150) {
                        listing.add(made[0].listing());
                    }
                });
            }
            assertThat(listing).as("%s: every evaluation summed over lists", b.name()).hasSize(150).containsOnly(true);
            String[] large = cpu.get(300L).replace("[", "").replace("]", "").replace(",", "").split(" ");
            assertThat(Double.parseDouble(large[2]) / (7 * 1.6) - 1).as("%s: the large box strained by percents", b.name())
                    .satisfies(e -> assertThat(Math.abs(e)).isGreaterThan(0.01));
            sameTrajectories(b.name(), cpu, cuda, 3, 150);
        }
    }

    /// `fire_cell` and `fire2_cell` on CUDA (`relax_fire_cell`, `relax_cell_forces`) against the CPU's kernels: six
    /// sheared LJ crystals relaxed by `fire_cell` and `fire2_cell` (`relax_fire_cell`'s FIRE 2.0
    /// branch, `cf_fire2`) at P 0.5 and, masked to the diagonal, at 0.3 — the same step counts,
    /// energy and cell within 1e-9.
    @Test
    void theCudaCellRelaxationGivesEverySystemTheCpuSteps() {
        for (String call : new String[] {"fire_cell(fmax=0.002, P=%s, steps=3000)", "fire_cell(fmax=0.002, P=%s, mask=111000, steps=3000)",
            "fire2_cell(fmax=0.002, P=%s, steps=3000)", "fire2_cell(fmax=0.002, P=%s, mask=111000, steps=3000)"}) {
            double p = call.contains("mask") ? 0.3 : 0.5;
            String text = call.formatted(p * dev.penstock.atoms.integrate.Units.BAR_PER_EV_PER_A3);
            java.util.Map<Long, String> cpu;
            try (CpuDevice d = new CpuDevice()) {
                cpu = cellRelax(d, text, x -> new dev.penstock.atoms.device.CpuRelaxKernels(1));
            }
            java.util.Map<Long, String> cuda;
            try (CudaDevice d = openDevice()) {
                cuda = cellRelax(d, text, x -> new CudaRelaxKernels(d));
            }
            assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(6);
            for (long id : cpu.keySet()) {
                String[] c = cuda.get(id).replace("[", "").replace("]", "").replace(",", "").split(" ");
                String[] h = cpu.get(id).replace("[", "").replace("]", "").replace(",", "").split(" ");
                assertThat(c[0]).as("%s, system %d steps", text, id).isEqualTo(h[0]);
                assertThat(Integer.parseInt(h[0])).as("it relaxed").isBetween(10, 2999);
                for (int q = 1; q < 11; q++) { // energy, the cell's nine
                    double x = Double.parseDouble(c[q]);
                    double y = Double.parseDouble(h[q]);
                    assertThat(Math.abs(x - y)).as("%s, system %d, value %d: %s against the CPU's %s", text, id, q, x, y)
                            .isLessThanOrEqualTo(1e-9 * Math.max(1, Math.abs(y)));
                }
            }
        }
    }

    /// The crystals through a stage of `text` (LJ, its batch on `device`): each leaver's steps,
    /// energy and cell by id.
    private static java.util.Map<Long, String> cellRelax(dev.penstock.device.Device device, String text,
            java.util.function.Function<dev.penstock.device.Device, dev.penstock.atoms.device.RelaxKernels> kernels) {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        dev.penstock.stage.StageBatch<AtomicSystem> batch = new dev.penstock.stage.StageBatch<>(dev.penstock.atoms.device.DeviceStages.stage(
                dev.penstock.atoms.stage.PipelineSpec.parse(text).getFirst(), LJ, device, kernels, 0.5, 0),
                dev.penstock.atoms.stage.Systems.withListRadius(2.8), dev.penstock.stage.Capacity.of(8, 1000, Long.MAX_VALUE));
        drive(batch, dev.penstock.atoms.device.BarostatDeviceStageTest.crystals(6, 23), step -> List.of(), e -> {
            if (e.left()) {
                out.put(e.sample().id(), e.steps() + " " + e.sample().energy() + " " + Arrays.toString(e.sample().cell().vectors()) + " "
                        + e.diagnosis());
            }
        }, step -> { });
        batch.close();
        return out;
    }

    @Test
    void theCudaNoseHooverChainGivesEverySystemTheCpuTrajectory() {
        java.util.Map<Long, String> cpu;
        try (CpuDevice d = new CpuDevice()) {
            cpu = nvt(d, x -> PairSummingKernels.summingPairs(2));
        }
        java.util.Map<Long, String> cuda;
        try (CudaDevice d = openDevice()) {
            cuda = nvt(d, x -> new CudaRelaxKernels(d));
        }
        assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(17);
        long flung = warm(18).get(3).id();
        assertThat(cuda.get(flung)).startsWith("0 ").contains("moved more than 0.5 Å in step 1");
        for (long id : cpu.keySet()) {
            if (id == flung) {
                continue;
            }
            String[] c = cuda.get(id).split(" ");
            String[] h = cpu.get(id).split(" ");
            assertThat(c[0]).as("system %d steps", id).isEqualTo(h[0]).isEqualTo("150");
            double ec = Double.parseDouble(c[1]);
            double eh = Double.parseDouble(h[1]);
            assertThat(Math.abs(ec - eh) / Math.abs(eh)).as("system %d energy", id).isLessThanOrEqualTo(1e-10);
            double qc = Double.parseDouble(c[c.length - 1]);
            double qh = Double.parseDouble(h[h.length - 1]);
            assertThat(Math.abs(qc - qh) / Math.abs(qh)).as("system %d conserved quantity", id).isLessThanOrEqualTo(1e-10);
            if (bitExact()) {
                assertThat(cuda.get(id)).as("system %d", id).isEqualTo(cpu.get(id));
            }
        }
    }

    @Test
    void theCudaVelocityVerletGivesEverySystemTheCpuTrajectory() {
        java.util.Map<Long, String> cpu;
        try (CpuDevice d = new CpuDevice()) {
            cpu = nve(d, x -> PairSummingKernels.summingPairs(2));
        }
        java.util.Map<Long, String> cuda;
        try (CudaDevice d = openDevice()) {
            cuda = nve(d, x -> new CudaRelaxKernels(d));
        }
        assertThat(cuda.keySet()).isEqualTo(cpu.keySet()).hasSize(17); // 18 less the overlapping one
        long flung = warm(18).get(3).id();
        assertThat(cuda.get(flung)).isEqualTo(cpu.get(flung)).startsWith("0 ").contains("moved more than 0.5 Å in step 1");
        for (long id : cpu.keySet()) {
            if (id == flung) {
                continue;
            }
            String[] c = cuda.get(id).split(" ", 3);
            String[] h = cpu.get(id).split(" ", 3);
            assertThat(c[0]).as("system %d steps", id).isEqualTo(h[0]).isEqualTo("150");
            double ec = Double.parseDouble(c[1]);
            double eh = Double.parseDouble(h[1]);
            assertThat(Math.abs(ec - eh) / Math.abs(eh)).as("system %d energy", id).isLessThanOrEqualTo(1e-10);
            if (bitExact()) {
                assertThat(cuda.get(id)).as("system %d", id).isEqualTo(cpu.get(id));
            }
        }
    }
}
