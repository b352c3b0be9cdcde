package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.optimize.Fire;
import dev.penstock.atoms.optimize.Relaxation;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.Methods;
import dev.penstock.atoms.stage.ModelEvaluator;
import dev.penstock.atoms.stage.SystemCodec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Memory;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.StageBatch;
import dev.penstock.stage.Summary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/// A pipeline stage whose batch is packed on `CpuDevice` (`DeviceStages`, the `PackedStage`
/// engine): the stage contract — every mode, chained with a per-sample stage, quarantine, hooks,
/// checkpoints, up-front refusals — with the numbers of the packed kernels.
class DeviceStageTest {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);
    private static final Convergence RULE = Convergence.of(0.01, 2000);

    static Stage<AtomicSystem> deviceFire(CpuDevice cpu, int threads) {
        return DeviceStages.fire(RULE, LJ, cpu, d -> PairSummingKernels.summingPairs(threads));
    }

    static String state(AtomicSystem s) {
        return s.energy() + " " + Arrays.toString(s.positions()) + " " + Arrays.toString(s.forces());
    }

    /// Runs `stage` (then `next`, if any) over `systems`; each delivered system's state by id,
    /// plus the quarantined ones' diagnoses.
    static Map<Long, String> run(List<AtomicSystem> systems, Pipeline.Mode mode, Stage<AtomicSystem> stage, Stage<AtomicSystem> next,
                                         Hook<AtomicSystem> hook) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
        Map<Long, String> out = new TreeMap<>();
        Pipeline<AtomicSystem> p = next == null ? Pipeline.of(stage) : Pipeline.of(stage).then(next);
        p.sizer(Systems.withListRadius(2.8)).batchCapacity(Capacity.of(64, 900, Long.MAX_VALUE)).samples(systems).mode(mode).results(sink);
        if (hook != null) {
            p.hook(hook);
        }
        Summary<AtomicSystem> summary;
        try (p) {
            summary = p.run();
        }
        for (AtomicSystem s : sink.samples()) {
            out.put(s.id(), state(s));
        }
        for (Event<AtomicSystem> q : summary.quarantined()) {
            out.put(q.sample().id(), "quarantined: " + q.diagnosis());
        }
        return out;
    }

    @Test
    void aDeviceStageGivesEverySystemTheStepsOfThePerSampleFireAndThePackedBatchsNumbersInEveryMode() {
        Map<Long, Integer> steps = new TreeMap<>();
        Hook<AtomicSystem> count = new Hook<>() {
            @Override
            public void onEvent(int stage, Event<AtomicSystem> e) {
                if (e.kind() == Event.Kind.EXITED) {
                    steps.put(e.sample().id(), (int) e.steps());
                }
            }
        };
        Map<Long, String> reference;
        try (CpuDevice cpu = new CpuDevice()) {
            reference = run(Clusters.inflight(40, 4), Pipeline.Mode.SYNC, deviceFire(cpu, 1), null, count);
        }
        assertThat(reference).hasSize(40);
        // the engine alone (PackedRelax) gives the same numbers: the pipeline adds nothing to them
        List<AtomicSystem> alone = Clusters.inflight(40, 4);
        try (CpuDevice cpu = new CpuDevice(); PackedRelax r = new PackedRelax(cpu, PairSummingKernels.summingPairs(1), LJ, RULE, 7, 300)) {
            List<PackedRelax.Outcome> outcomes = r.relax(alone);
            for (AtomicSystem s : alone) {
                assertThat(state(s)).as("system %d", s.id()).isEqualTo(reference.get(s.id()));
                assertThat(outcomes.get((int) s.id()).steps()).isEqualTo(steps.get(s.id()));
            }
        }
        // the per-sample FIRE takes the same steps to the same energies (to rounding)
        for (AtomicSystem s : Clusters.inflight(40, 4)) {
            Relaxation.Result r = Relaxation.relax(new Fire(), s, LJ, RULE);
            assertThat(steps.get(s.id())).as("system %d", s.id()).isEqualTo(r.steps());
            double e = Double.parseDouble(reference.get(s.id()).split(" ")[0]);
            assertThat(Math.abs(e - r.energy()) / Math.abs(r.energy())).isLessThan(1e-10);
        }
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            for (int threads : new int[] {1, 3}) {
                try (CpuDevice cpu = new CpuDevice()) {
                    assertThat(run(Clusters.inflight(40, 4), mode, deviceFire(cpu, threads), null, null)).as("%s, %d threads", mode, threads)
                            .isEqualTo(reference);
                }
            }
        }
        assertThat(Memory.liveArenas()).isZero();
    }

    /// `count` clusters with seeded velocities (kT ≈ 0.1ε, masses 1).
    static List<AtomicSystem> warm(int count, long seed) {
        List<AtomicSystem> out = Clusters.inflight(count, seed);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        for (AtomicSystem s : out) {
            double[] v = s.velocities();
            for (int i = 0; i < v.length; i++) {
                v[i] = 0.3 * rnd.nextGaussian();
            }
        }
        return out;
    }

    @Test
    void aDeviceNveStageIntegratesAsThePerSampleNveToRoundingAndChainsAfterADeviceFire() {
        Stage<AtomicSystem> perSample = Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), Methods.nve(0.002, 300));
        Map<Long, String> reference = run(warm(20, 3), Pipeline.Mode.SYNC, perSample, null, null);
        Map<Long, String> onDevice;
        try (CpuDevice cpu = new CpuDevice()) {
            onDevice = run(warm(20, 3), Pipeline.Mode.SYNC, DeviceStages.nve(0.002, 300, LJ, cpu, d -> PairSummingKernels.summingPairs(2)), null, null);
        }
        assertThat(onDevice.keySet()).isEqualTo(reference.keySet()).hasSize(20);
        for (long id : reference.keySet()) {
            double a = Double.parseDouble(reference.get(id).split(" ")[0]);
            double b = Double.parseDouble(onDevice.get(id).split(" ")[0]);
            assertThat(Math.abs(a - b) / Math.abs(a)).as("system %d after 300 NVE steps", id).isLessThan(1e-9);
        }
        // fire | nve, both on the device, in every mode: the same numbers
        Map<Long, String> chained = null;
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            try (CpuDevice cpu = new CpuDevice()) {
                Map<Long, String> got = run(warm(20, 3), mode, deviceFire(cpu, 1), DeviceStages.nve(0.002, 100, LJ, cpu,
                        d -> PairSummingKernels.summingPairs(1)), null);
                assertThat(got).hasSize(20);
                if (chained == null) {
                    chained = got;
                }
                assertThat(got).as("mode %s", mode).isEqualTo(chained);
            }
        }
    }

    @Test
    void aDeviceMorseStageTakesThePerSampleFireStepsToTheSameEnergiesAndIsItsOwnOnAnyThreads() {
        dev.penstock.atoms.potential.Morse morse = new dev.penstock.atoms.potential.Morse(1, 3, 1.1, 2.5);
        Map<Long, Integer> steps = new TreeMap<>();
        Map<Long, String> onDevice;
        try (CpuDevice cpu = new CpuDevice()) {
            Stage<AtomicSystem> stage = DeviceStages.stage(dev.penstock.atoms.stage.PipelineSpec.parse("fire(fmax=0.01, steps=2000)").getFirst(),
                    morse, cpu, d -> PairSummingKernels.summingPairs(1), Double.POSITIVE_INFINITY, 0);
            onDevice = run(Clusters.inflight(30, 6), Pipeline.Mode.SYNC, stage, null, new Hook<>() {
                @Override
                public void onEvent(int st, Event<AtomicSystem> e) {
                    if (e.kind() == Event.Kind.EXITED) {
                        steps.put(e.sample().id(), (int) e.steps());
                    }
                }
            });
        }
        assertThat(onDevice).hasSize(30);
        Convergence rule = Convergence.of(0.01, 2000);
        int same = 0;
        for (AtomicSystem s : Clusters.inflight(30, 6)) {
            Relaxation.Result r = Relaxation.relax(new Fire(), s, new dev.penstock.atoms.potential.Morse(1, 3, 1.1, 2.5), rule);
            same += steps.get(s.id()) == r.steps() ? 1 : 0;
            double e = Double.parseDouble(onDevice.get(s.id()).split(" ")[0]);
            assertThat(Math.abs(e - r.energy()) / Math.abs(r.energy())).as("system %d", s.id()).isLessThan(1e-9);
        }
        assertThat(same).as("systems with the per-sample FIRE's step count").isGreaterThanOrEqualTo(28);
        try (CpuDevice cpu = new CpuDevice()) {
            Stage<AtomicSystem> split = DeviceStages.stage(dev.penstock.atoms.stage.PipelineSpec.parse("fire(fmax=0.01, steps=2000)").getFirst(),
                    morse, cpu, d -> PairSummingKernels.summingPairs(3), Double.POSITIVE_INFINITY, 0);
            assertThat(run(Clusters.inflight(30, 6), Pipeline.Mode.ASYNC_RECEIVE, split, null, null)).isEqualTo(onDevice);
        }
    }

    @Test
    void aDeviceMassWeightedFireTakesThePerSampleStepsAndIsNotTheAseExactOne() {
        java.util.function.Supplier<List<AtomicSystem>> argon = () -> {
            List<AtomicSystem> out = Clusters.inflight(24, 9);
            for (AtomicSystem s : out) {
                Arrays.fill(s.masses(), 39.948);
            }
            return out;
        };
        var mw = dev.penstock.atoms.stage.PipelineSpec.parse("fire_mw(fmax=0.01, steps=3000)").getFirst();
        var ase = dev.penstock.atoms.stage.PipelineSpec.parse("fire(fmax=0.01, steps=3000)").getFirst();
        Map<Long, String> device;
        Map<Long, String> aseExact;
        try (CpuDevice cpu = new CpuDevice()) {
            device = run(argon.get(), Pipeline.Mode.SYNC, DeviceStages.stage(mw, LJ, cpu, d -> PairSummingKernels.summingPairs(2), Double.POSITIVE_INFINITY, 0),
                    null, null);
            aseExact = run(argon.get(), Pipeline.Mode.SYNC, DeviceStages.stage(ase, LJ, cpu, d -> PairSummingKernels.summingPairs(1), Double.POSITIVE_INFINITY,
                    0), null, null);
        }
        Map<Long, String> perSample = run(argon.get(), Pipeline.Mode.SYNC,
                Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), Methods.fireMassWeighted(Convergence.of(0.01, 3000))), null, null);
        assertThat(device.keySet()).isEqualTo(perSample.keySet()).hasSize(24);
        int differs = 0;
        for (long id : perSample.keySet()) {
            double a = Double.parseDouble(device.get(id).split(" ")[0]);
            double b = Double.parseDouble(perSample.get(id).split(" ")[0]);
            assertThat(Math.abs(a - b) / Math.abs(b)).as("system %d", id).isLessThan(1e-9);
            differs += device.get(id).equals(aseExact.get(id)) ? 0 : 1;
        }
        assertThat(differs).as("systems the mass weighting moves elsewhere").isEqualTo(24);
    }

    private static Stage<AtomicSystem> deviceFire2(CpuDevice cpu, int threads) {
        return DeviceStages.stage(dev.penstock.atoms.stage.PipelineSpec.parse("fire2(fmax=0.01, steps=3000)").getFirst(), LJ, cpu,
                d -> PairSummingKernels.summingPairs(threads), Double.POSITIVE_INFINITY, 0);
    }

    @Test
    void aDeviceFire2StageTakesThePerSampleStepsAndRestoresBitForBit() throws Exception {
        Map<Long, Integer> steps = new TreeMap<>();
        Hook<AtomicSystem> count = new Hook<>() {
            @Override
            public void onEvent(int st, Event<AtomicSystem> e) {
                if (e.kind() == Event.Kind.EXITED) {
                    steps.put(e.sample().id(), (int) e.steps());
                }
            }
        };
        Map<Long, String> device;
        try (CpuDevice cpu = new CpuDevice()) {
            device = run(Clusters.inflight(24, 12), Pipeline.Mode.SYNC, deviceFire2(cpu, 2), null, count);
        }
        assertThat(device).hasSize(24);
        int same = 0;
        for (AtomicSystem s : Clusters.inflight(24, 12)) {
            Relaxation.Result r = Relaxation.relax(new dev.penstock.atoms.optimize.Fire2(), s, new LennardJones(1, 1, 2.5, true), Convergence.of(0.01, 3000));
            same += steps.get(s.id()) == r.steps() ? 1 : 0;
            double e = Double.parseDouble(device.get(s.id()).split(" ")[0]);
            assertThat(Math.abs(e - r.energy()) / Math.abs(r.energy())).as("system %d", s.id()).isLessThan(1e-9);
        }
        assertThat(same).as("systems with the per-sample FIRE 2.0's step count").isGreaterThanOrEqualTo(22);
        restoresBitForBit(threads -> cpu -> deviceFire2(cpu, threads), Capacity.of(10, 500, Long.MAX_VALUE), () -> Clusters.inflight(10, 2),
                -1, 0, 1, 25, 60);
    }

    /// System `id`: `cells`³ fcc cells (nearest neighbours 1.1σ) in a periodic cube, positions off
    /// their sites by up to ±`noise` (from `seed`).
    static AtomicSystem fccBox(long id, int cells, double noise, long seed) {
        double a = 1.1 * Math.sqrt(2);
        double[][] basis = {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        double[] r = new double[3 * 4 * cells * cells * cells];
        int i = 0;
        for (int x = 0; x < cells; x++) {
            for (int y = 0; y < cells; y++) {
                for (int z = 0; z < cells; z++) {
                    for (double[] b : basis) {
                        r[i++] = (x + b[0]) * a + (noise > 0 ? rnd.nextDouble(-noise, noise) : 0);
                        r[i++] = (y + b[1]) * a + (noise > 0 ? rnd.nextDouble(-noise, noise) : 0);
                        r[i++] = (z + b[2]) * a + (noise > 0 ? rnd.nextDouble(-noise, noise) : 0);
                    }
                }
            }
        }
        double[] m = new double[r.length / 3];
        Arrays.fill(m, 1);
        double l = cells * a;
        return new AtomicSystem(id, r, m, new int[m.length], new double[] {l, l, l}, new boolean[] {true, true, true});
    }

    /// `box` with its lattice vectors replaced by `vectors` (row after row) and periodic along `pbc`.
    static AtomicSystem recelled(AtomicSystem box, double[] vectors, boolean[] pbc) {
        return new AtomicSystem(box.id(), box.positions().clone(), box.masses().clone(), new int[box.atoms()],
                dev.penstock.atoms.system.Cell.of(vectors, pbc));
    }

    /// Periodic cells of every kind the kernels scan images for, each with its expected
    /// `CellImages` kind: boxes longer than twice the cutoff (nearest image), shorter than twice
    /// it and shorter than the cutoff itself (an atom meets its own images), a sheared triclinic
    /// cell, a slab free along z and a sheared slab.
    static List<AtomicSystem> cells() {
        double a = 1.1 * Math.sqrt(2);
        AtomicSystem small = fccBox(1, 3, 0.08, 11); // 4.67σ a side: less than twice the 2.5σ cutoff
        AtomicSystem tiny = fccBox(2, 1, 0.05, 12); // 4 atoms in 1.56σ: every atom meets its own images
        double l = 3 * a;
        AtomicSystem sheared = recelled(fccBox(3, 3, 0.06, 13), new double[] {l, 0, 0, 0.4 * l, l, 0, -0.3 * l, 0.2 * l, l},
                new boolean[] {true, true, true});
        AtomicSystem slab = recelled(fccBox(4, 3, 0.07, 14), new double[] {l, 0, 0, 0, l, 0, 0, 0, l}, new boolean[] {true, true, false});
        AtomicSystem shearedSlab = recelled(fccBox(5, 3, 0.05, 15), new double[] {l, 0, 0, 0.5 * l, l, 0, 0, 0, 2 * l},
                new boolean[] {true, true, false});
        return List.of(fccBox(0, 4, 0.05, 10), small, tiny, sheared, slab, shearedSlab);
    }

    @Test
    void aScannedCellsListGivesItTheSameBitsInAnyBatchOnAnyThreadCount() {
        // the lists against the scan itself: RelaxKernelsEmulationTest (relax.cu scans, bit for bit)
        java.util.function.Function<List<AtomicSystem>, String> states = list -> {
            StringBuilder b = new StringBuilder();
            for (AtomicSystem s : list) {
                b.append(s.energy()).append(Arrays.toString(s.positions())).append(Arrays.toString(s.forces())).append('\n');
            }
            return b.toString();
        };
        List<AtomicSystem> together = cells();
        PairSummingKernels kernels = PairSummingKernels.summingPairs(2);
        List<PackedRelax.Outcome> a;
        try (CpuDevice cpu = new CpuDevice(); PackedRelax r = new PackedRelax(cpu, kernels, LJ, RULE, 6, 400)) {
            a = r.relax(together);
        }
        List<AtomicSystem> alone = new ArrayList<>();
        int steps = 0;
        for (AtomicSystem s : cells()) { // each its own batch, one thread: its lists built at other steps
            try (CpuDevice cpu = new CpuDevice(); PackedRelax r = new PackedRelax(cpu, PairSummingKernels.summingPairs(1), LJ, RULE, 1, 400)) {
                int k = alone.size();
                alone.add(s);
                assertThat(r.relax(List.of(s)).getFirst().steps()).as("cell %d steps", k).isEqualTo(a.get(k).steps()).isGreaterThan(5);
                steps += a.get(k).steps();
            }
        }
        assertThat(states.apply(together)).isEqualTo(states.apply(alone));
        // five of the six cells are scanned: each list was built at least once and then kept for some steps
        assertThat(kernels.listBuilds()).isBetween(5L, (long) steps / 2);
    }

    @Test
    void largeSystemsAreListedFromBinsWithTheAllPairsNumbersBitForBitOnOneThreadOrSplitOverTwo() {
        double l = 7 * 1.1 * Math.sqrt(2);
        java.util.function.Supplier<List<AtomicSystem>> large = () -> List.of(recelled(fccBox(0, 7, 0.1, 5), new double[] {l, 0, 0, 0, l, 0, 0, 0, l}, new boolean[] {false, false, false}), fccBox(1, 7, 0.06, 6),
                recelled(fccBox(2, 7, 0.05, 7), new double[] {l, 0, 0, 0, l, 0, 0, 0, 3 * l}, new boolean[] {true, true, false}));
        List<AtomicSystem> listed = large.get();
        List<AtomicSystem> all = large.get();
        Convergence rule = Convergence.of(0.01, 120);
        PairSummingKernels kernels = PairSummingKernels.summingPairs(2);
        List<PackedRelax.Outcome> a;
        List<PackedRelax.Outcome> b;
        try (CpuDevice cpu = new CpuDevice(); PackedRelax r = new PackedRelax(cpu, kernels, LJ, rule, 3, 4200)) {
            a = r.relax(listed);
        }
        try (CpuDevice cpu = new CpuDevice(); PackedRelax r = new PackedRelax(cpu, PairSummingKernels.allPairs(2), LJ, rule, 3, 4200)) {
            b = r.relax(all);
        }
        List<AtomicSystem> halfListed = large.get(); // one thread: half lists, each system whole (two: full lists, atoms split)
        try (CpuDevice cpu = new CpuDevice(); PackedRelax r = new PackedRelax(cpu, PairSummingKernels.summingPairs(1), LJ, rule, 3, 4200)) {
            r.relax(halfListed);
        }
        for (int k = 0; k < 3; k++) {
            assertThat(halfListed.get(k).positions()).as("system %d on one thread", k).isEqualTo(all.get(k).positions());
            assertThat(halfListed.get(k).forces()).as("system %d on one thread", k).isEqualTo(all.get(k).forces());
            assertThat(listed.get(k).atoms()).isGreaterThanOrEqualTo(PairList.ATOMS);
            assertThat(a.get(k).steps()).as("system %d steps", k).isEqualTo(b.get(k).steps()).isGreaterThan(20);
            assertThat(listed.get(k).energy()).as("system %d", k).isEqualTo(all.get(k).energy());
            assertThat(listed.get(k).positions()).as("system %d", k).isEqualTo(all.get(k).positions());
            assertThat(listed.get(k).forces()).as("system %d", k).isEqualTo(all.get(k).forces());
        }
        assertThat(kernels.listBuilds()).isBetween(3L, 3L * 60);
    }

    @Test
    void everyPeriodicCellRelaxesAsOnThePerSampleStageAndScansTheImagesItNeeds() {
        Map<Long, Integer> steps = new TreeMap<>();
        Map<Long, String> device;
        try (CpuDevice cpu = new CpuDevice()) {
            device = run(cells(), Pipeline.Mode.SYNC, deviceFire(cpu, 2), null, new Hook<>() {
                @Override
                public void onEvent(int st, Event<AtomicSystem> e) {
                    if (e.kind() == Event.Kind.EXITED) {
                        steps.put(e.sample().id(), (int) e.steps());
                    }
                }
            });
        }
        assertThat(device).hasSize(6);
        for (AtomicSystem s : cells()) {
            Relaxation.Result r = Relaxation.relax(new Fire(), s, LJ, RULE);
            assertThat(r.steps()).as("cell %d relaxes", s.id()).isGreaterThan(5);
            assertThat(steps.get(s.id())).as("cell %d steps", s.id()).isEqualTo(r.steps());
            double e = Double.parseDouble(device.get(s.id()).split(" ")[0]);
            assertThat(Math.abs(e - r.energy()) / Math.abs(r.energy())).as("cell %d", s.id()).isLessThan(1e-10);
        }
        // what each cell's columns say: the nearest image only where it suffices, else the images a pair can reach
        int[][] expected = {{CellImages.NEAREST, 0, 0, 0}, {CellImages.IMAGES, 1, 1, 1}, {CellImages.IMAGES, 2, 2, 2},
                {CellImages.IMAGES, 1, 1, 1}, {CellImages.IMAGES, 1, 1, 0}, {CellImages.IMAGES, 1, 1, 0}};
        try (dev.penstock.memory.HostArena arena = dev.penstock.memory.Memory.newConfinedArena("cells")) {
            RelaxColumns c = RelaxColumns.allocate(arena, 6, 1);
            List<AtomicSystem> all = cells();
            for (int k = 0; k < 6; k++) {
                CellImages.pack(all.get(k), 2.5, c, k);
                assertThat(new int[] {c.getInt(RelaxColumns.CELL_KIND, k), c.getInt(RelaxColumns.IMAGES_A, k), c.getInt(RelaxColumns.IMAGES_B, k),
                        c.getInt(RelaxColumns.IMAGES_C, k)}).as("cell %d", k).isEqualTo(expected[k]);
            }
        }
    }

    @Test
    void aSystemFlungApartByItsTimeStepIsQuarantinedByTheStepKernelAndTheOthersAreUntouched() {
        Map<Long, String> clean;
        Map<Long, String> flung;
        try (CpuDevice cpu = new CpuDevice()) {
            clean = run(warm(10, 8), Pipeline.Mode.SYNC, DeviceStages.nve(0.002, 200, LJ, cpu, d -> PairSummingKernels.summingPairs(1), 0.5), null, null);
        }
        List<AtomicSystem> in = warm(10, 8);
        in.get(6).velocities()[3] = 400; // atom 1: 0.8 Å in the first step of 0.002 τ
        try (CpuDevice cpu = new CpuDevice()) {
            flung = run(in, Pipeline.Mode.SYNC, DeviceStages.nve(0.002, 200, LJ, cpu, d -> PairSummingKernels.summingPairs(1), 0.5), null, null);
        }
        assertThat(flung.get(6L)).isEqualTo("quarantined: system 6: an atom moved more than 0.5 Å in step 1 of stage 'nve' "
                + "(is the time step too large?)");
        for (long id = 0; id < 10; id++) {
            if (id != 6) {
                assertThat(flung.get(id)).as("system %d", id).isEqualTo(clean.get(id));
            }
        }
    }

    @Test
    void aDeviceNveBatchRestoredFromACheckpointContinuesBitForBit() throws Exception {
        restoresBitForBit(threads -> cpu -> DeviceStages.nve(0.002, 60, LJ, cpu, d -> PairSummingKernels.summingPairs(threads)),
                Capacity.of(10, 1200, Long.MAX_VALUE), () -> warm(8, 5), 8, 0, 1, 33);
    }

    @Test
    void aDeviceStageChainsIntoAPerSampleStageAndQuarantinesWhatItCannotEvaluate() {
        List<AtomicSystem> clean = Clusters.inflight(16, 9);
        List<AtomicSystem> dirty = Clusters.inflight(16, 9);
        System.arraycopy(dirty.get(3).positions(), 0, dirty.get(3).positions(), 3, 3); // two atoms on top of each other
        dirty.get(11).positions()[2] = Double.NaN;
        Stage<AtomicSystem> nve = Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), Methods.nve(0.002, 50));
        Map<Long, String> a;
        Map<Long, String> b;
        try (CpuDevice cpu = new CpuDevice()) {
            a = run(clean, Pipeline.Mode.ASYNC_RECEIVE, deviceFire(cpu, 2), nve, null);
        }
        try (CpuDevice cpu = new CpuDevice()) {
            b = run(dirty, Pipeline.Mode.ASYNC_RECEIVE, deviceFire(cpu, 2), Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)),
                    Methods.nve(0.002, 50)), null);
        }
        assertThat(b.get(3L)).startsWith("quarantined: system 3").contains("overlap");
        assertThat(b.get(11L)).isEqualTo("quarantined: system 11: non-finite position of atom 0 (z = NaN)");
        for (long id = 0; id < 16; id++) {
            if (id != 3 && id != 11) {
                assertThat(b.get(id)).as("system %d", id).isEqualTo(a.get(id));
            }
        }
    }

    @Test
    void aHookSeesCurrentSystemsAndItsVerdictTakesOneOutLeavingTheOthersIdentical() {
        List<Long> seenAtStep3 = new ArrayList<>();
        Hook<AtomicSystem> judge = new Hook<>() {
            @Override
            public List<Verdict<AtomicSystem>> check(int stage, long step, List<AtomicSystem> samples) {
                List<Verdict<AtomicSystem>> out = new ArrayList<>();
                for (AtomicSystem s : samples) {
                    if (step == 3) {
                        seenAtStep3.add(s.id());
                        assertThat(Double.isFinite(s.energy())).as("system %d evaluated", s.id()).isTrue();
                    }
                    if (s.id() == 5 && step == 3) {
                        out.add(new Verdict<>(s, "system 5: judged at step 3"));
                    }
                }
                return out;
            }
        };
        Map<Long, String> plain;
        Map<Long, String> judged;
        try (CpuDevice cpu = new CpuDevice()) {
            plain = run(Clusters.inflight(12, 6), Pipeline.Mode.SYNC, deviceFire(cpu, 1), null, null);
        }
        try (CpuDevice cpu = new CpuDevice()) {
            judged = run(Clusters.inflight(12, 6), Pipeline.Mode.SYNC, deviceFire(cpu, 1), null, judge);
        }
        assertThat(seenAtStep3).contains(5L);
        assertThat(judged.get(5L)).isEqualTo("quarantined: system 5: judged at step 3");
        for (long id = 0; id < 12; id++) {
            if (id != 5) {
                assertThat(judged.get(id)).as("system %d", id).isEqualTo(plain.get(id));
            }
        }
    }

    @Test
    void aDeviceBatchRestoredFromACheckpointContinuesBitForBit() throws Exception {
        restoresBitForBit(threads -> cpu -> deviceFire(cpu, threads), Capacity.of(10, 500, Long.MAX_VALUE), () -> Clusters.inflight(10, 2),
                -1, 0, 1, 7, 40);
    }

    /// A stage (made on a CPU device with 1 thread, restored into one with 2) stepped to each
    /// `cut`, saved, its systems through the checkpoint codec, restored and stepped to the end:
    /// every system ends bit for bit as without the cut (`systems` of them, or any number if −1).
    static void restoresBitForBit(java.util.function.IntFunction<java.util.function.Function<CpuDevice, Stage<AtomicSystem>>> stage,
                                          Capacity room, java.util.function.Supplier<List<AtomicSystem>> input, int systems, int... cuts)
            throws Exception {
        Map<Long, String> straight = new TreeMap<>();
        try (CpuDevice cpu = new CpuDevice()) {
            StageBatch<AtomicSystem> b = new StageBatch<>(stage.apply(1).apply(cpu), Systems.withListRadius(2.8), room);
            b.admit(input.get(), e -> { });
            drain(b, straight, 100_000);
            b.close();
        }
        assertThat(straight).isNotEmpty();
        if (systems >= 0) {
            assertThat(straight).hasSize(systems);
        }
        for (int cut : cuts) {
            Map<Long, String> resumed = new TreeMap<>();
            List<StageBatch.Held<AtomicSystem>> saved;
            try (CpuDevice cpu = new CpuDevice()) {
                StageBatch<AtomicSystem> first = new StageBatch<>(stage.apply(1).apply(cpu), Systems.withListRadius(2.8), room);
                first.admit(input.get(), e -> { });
                drain(first, resumed, cut);
                saved = first.save();
                first.close();
            }
            try (CpuDevice cpu = new CpuDevice()) {
                StageBatch<AtomicSystem> second = new StageBatch<>(stage.apply(2).apply(cpu), Systems.withListRadius(2.8), room);
                for (StageBatch.Held<AtomicSystem> h : saved) {
                    second.restore(new StageBatch.Held<>(roundTrip(h.sample()), h.status(), h.motion(), h.evaluation()));
                }
                drain(second, resumed, 100_000);
                second.close();
            }
            assertThat(resumed).as("cut after %d steps", cut).isEqualTo(straight);
        }
    }

    /// `s` through the checkpoint codec (as a checkpoint stores it).
    private static AtomicSystem roundTrip(AtomicSystem s) throws java.io.IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        new SystemCodec().write(s, new java.io.DataOutputStream(b));
        return new SystemCodec().read(new java.io.DataInputStream(new java.io.ByteArrayInputStream(b.toByteArray())));
    }

    private static void drain(StageBatch<AtomicSystem> b, Map<Long, String> done, int steps) {
        for (int k = 0; k < steps && !b.isEmpty(); k++) {
            b.step(e -> {
                if (e.left()) {
                    done.put(e.sample().id(), state(e.sample()) + "/" + e.steps());
                }
            });
        }
    }

    @Test
    void anUnboundedBatchIsRefusedNamingTheStage() {
        try (CpuDevice cpu = new CpuDevice()) {
            assertThatThrownBy(() -> new StageBatch<>(deviceFire(cpu, 1), Systems.withListRadius(2.8),
                    Capacity.of(8, Long.MAX_VALUE, Long.MAX_VALUE))).hasMessageContaining("needs a bound on atoms");
        }
    }
}
