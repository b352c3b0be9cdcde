package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.potential.Morse;
import dev.penstock.atoms.potential.StillingerWeber;
import dev.penstock.atoms.potential.Tersoff;
import dev.penstock.atoms.stage.PerSystemStages;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Lattices;
import dev.penstock.device.CpuDevice;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import dev.penstock.testing.Ci;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/// Device stages over models the kernels do not sum themselves — EAM, Stillinger–Weber and
/// Tersoff from LAMMPS's potential files (`ModelTerms` on `CpuRelaxKernels`): every system ends
/// with the per-system stages' bits (positions, velocities, forces, energy, virial) through a
/// fused relax-and-thermostat stage chained into NVE, on one thread or two, in every mode, after
/// a checkpoint restore; a system the model refuses is quarantined with the model's words and
/// the others are untouched; kernels that cannot run a model are refused when the batch is made.
class ModelDeviceStageTest {
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");
    private static final String PIPELINE = "fire(fmax=0.05, steps=120) + langevin(T=500, dt=2, steps=12) | nve(dt=2, steps=12)";
    private static final long SEED = 17;

    private static Path potential(String name) {
        Path p = POTENTIALS.resolve(name);
        assumeTrue(Files.isReadable(p) || Ci.required(), "LAMMPS's potential files (lammps-data) are not installed");
        return p;
    }

    static String state(AtomicSystem s) {
        return s.energy() + " r" + Arrays.toString(s.positions()) + " v" + Arrays.toString(s.velocities()) + " f"
                + Arrays.toString(s.forces()) + " w" + Arrays.toString(s.virial());
    }

    private static List<AtomicSystem> copies(List<AtomicSystem> systems) {
        List<AtomicSystem> out = new ArrayList<>();
        for (AtomicSystem s : systems) {
            out.add(new AtomicSystem(s.id(), s.positions(), s.masses(), s.numbers(), s.cell()));
        }
        return out;
    }

    /// Runs `p` over `systems`: each delivered system's state by id, the quarantined ones' diagnoses.
    static Map<Long, String> run(Pipeline<AtomicSystem> p, List<AtomicSystem> systems, double cutoff, Pipeline.Mode mode) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
        p.sizer(Systems.withListRadius(cutoff)).batchCapacity(Capacity.of(6, 1200, Long.MAX_VALUE)).samples(copies(systems)).mode(mode)
                .refillEvery(3).results(sink);
        Summary<AtomicSystem> summary;
        try (p) {
            summary = p.run();
        }
        Map<Long, String> out = new TreeMap<>();
        for (AtomicSystem s : sink.samples()) {
            out.put(s.id(), state(s));
        }
        for (Event<AtomicSystem> q : summary.quarantined()) {
            out.put(q.sample().id(), "quarantined: " + q.diagnosis());
        }
        return out;
    }

    static Pipeline<AtomicSystem> onDevice(CpuDevice cpu, Supplier<? extends Model> model, int threads) {
        Pipeline<AtomicSystem> p = null;
        for (List<PipelineSpec.Call> calls : PipelineSpec.parse(PIPELINE)) {
            Stage<AtomicSystem> stage = DeviceStages.stage(calls, model.get(), cpu, d -> new CpuRelaxKernels(threads), Double.POSITIVE_INFINITY,
                    SEED);
            p = p == null ? Pipeline.of(stage) : p.then(stage);
        }
        return p;
    }

    /// The per-system stages' results, then the device stages' on 1 and 2 threads in `modes`:
    /// all equal, bit for bit.
    private static void sameBits(Supplier<? extends Model> model, List<AtomicSystem> systems, Pipeline.Mode... modes) {
        sameBits(model, systems, true, modes);
    }

    /// As the other; `virial`: whether the model gives one unasked (pair potentials sum it only when
    /// a stage asks: a barostat's).
    private static void sameBits(Supplier<? extends Model> model, List<AtomicSystem> systems, boolean virial, Pipeline.Mode... modes) {
        double cutoff = model.get().cutoff();
        Map<Long, String> perSystem = run(PerSystemStages.build(PipelineSpec.parse(PIPELINE), model, SEED, 1), systems, cutoff, Pipeline.Mode.SYNC);
        assertThat(perSystem).hasSize(systems.size());
        assertThat(perSystem.values()).noneMatch(v -> v.startsWith("quarantined")).allMatch(v -> v.endsWith("wnull") != virial);
        try (CpuDevice cpu = new CpuDevice()) {
            for (Pipeline.Mode mode : modes) {
                for (int threads : new int[] {1, 2}) {
                    assertThat(run(onDevice(cpu, model, threads), systems, cutoff, mode)).as("%s, %d threads", mode, threads).isEqualTo(perSystem);
                }
            }
        }
    }

    /// A sum of potentials (ZBL overlaid on EAM, `ModelSum`) on a device stage: each part's
    /// checkpointed state in order, the summed virial, the per-system stages' bits.
    @Test
    void aSumOfPotentialsOnADeviceStageGivesThePerSystemStagesBits() throws Exception {
        String spec = "zbl(inner=1.9, outer=2.6) + eam(file=" + potential("Cu_u3.eam") + ")";
        List<AtomicSystem> copper = List.of(Lattices.cluster(0, 13, 2.4, new int[] {29, 29}, 0, 1), Lattices.fcc(1, 3, 3.5, 0, true,
                new int[] {29, 29}, 0, 2), Lattices.cluster(2, 38, 2.4, new int[] {29, 29}, 0, 3));
        sameBits(PipelineSpec.potential(spec), copper, Pipeline.Mode.SYNC, Pipeline.Mode.FULLY_ASYNC);
    }

    /// SNAP (with its ZBL overlay, `Ta06A.snap`) on a device stage: the per-system stages' bits,
    /// periodic and free, the list state checkpointed.
    @Test
    void snapOnADeviceStageGivesThePerSystemStagesBits() throws Exception {
        java.nio.file.Path snap = java.nio.file.Path.of("/usr/share/lammps/potentials/Ta06A.snap");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(snap) || dev.penstock.testing.Ci.required(),
                "lammps-data is not installed");
        List<AtomicSystem> tantalum = List.of(Lattices.cluster(0, 15, 2.86, new int[] {73, 73}, 0, 1),
                Lattices.cluster(1, 27, 2.86, new int[] {73, 73}, 0, 2),
                Lattices.cluster(2, 140, 2.86, new int[] {73, 73}, 0, 3)); // in parts (Model.parts), shared by the kernels' threads
        sameBits(PipelineSpec.potential("snap(file=" + snap + ")"), tantalum, Pipeline.Mode.SYNC, Pipeline.Mode.FULLY_ASYNC);
    }

    @Test
    void eamOnADeviceStageGivesEveryCopperAndAlloySystemThePerSystemStagesBits() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        List<AtomicSystem> copper = List.of(Lattices.cluster(0, 13, 2.55, new int[] {29, 29}, 0, 1), Lattices.cluster(1, 55, 2.55, new int[] {29, 29}, 0, 2),
                Lattices.fcc(2, 3, 3.615, 0, true, new int[] {29, 29}, 0, 3), Lattices.fcc(3, 3, 3.615, 1.4, false, new int[] {29, 29}, 0, 4),
                Lattices.cluster(4, 38, 2.55, new int[] {29, 29}, 0, 5));
        sameBits(cu::fresh, copper, Pipeline.Mode.SYNC, Pipeline.Mode.FULLY_ASYNC);
        Eam alloy = Eam.read(potential("CuNi.eam.alloy"));
        sameBits(alloy::fresh, List.of(Lattices.fcc(10, 3, 3.56, 1.3, true, new int[] {29, 28}, 0.4, 6), Lattices.cluster(11, 79, 2.5, new int[] {29, 28}, 0.5, 7)),
                Pipeline.Mode.SYNC);
        Eam fs = Eam.read(potential("CuZr_mm.eam.fs"));
        sameBits(fs::fresh, List.of(Lattices.cluster(20, 55, 2.7, new int[] {29, 40}, 0.3, 8)), Pipeline.Mode.SYNC);
    }

    /// Lennard-Jones and Morse on the CPU's default kernels are computed by the model too (not
    /// summed by `PairGather`): free clusters, a periodic box shorter than twice the cutoff (its
    /// atoms meet their own images) and a triclinic one all end with the per-system stages' bits.
    @Test
    void lennardJonesAndMorseOnTheCpusDeviceStagesGiveThePerSystemStagesBits() {
        assertThat(new CpuRelaxKernels(1).sumsPairs()).isFalse();
        assertThat(PairSummingKernels.summingPairs(1).sumsPairs()).isTrue();
        List<AtomicSystem> argon = List.of(Lattices.cluster(0, 13, 3.8, new int[] {18, 18}, 0.05, 21), Lattices.cluster(1, 55, 3.8, new int[] {18, 18}, 0.1, 22),
                Lattices.fcc(2, 3, 5.26, 0, true, new int[] {18, 18}, 0.05, 23), Lattices.fcc(3, 3, 5.26, 1.3, true, new int[] {18, 18}, 0.05, 24));
        sameBits(() -> new LennardJones(0.0104, 3.4, 8.5, true), argon, false, Pipeline.Mode.SYNC, Pipeline.Mode.ASYNC_RECEIVE);
        sameBits(() -> new Morse(0.0104, 1.3, 3.8, 8.5), argon, false, Pipeline.Mode.SYNC);
    }

    @Test
    void aStageFromItsTextIsOneChainedStageWithEveryArgumentChecked() {
        LennardJones lj = new LennardJones(0.0104, 3.4, 8.5, true);
        try (CpuDevice cpu = new CpuDevice()) {
            assertThat(DeviceStages.stage("fire(fmax=0.05, steps=120) + nve(dt=2, steps=12)", lj, cpu, d -> new CpuRelaxKernels(1), 1.0, 3)
                    .name()).isEqualTo("fire+nve");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> DeviceStages.stage("fire(fmax=0.05) | nve(dt=2, steps=12)", lj, cpu,
                    d -> new CpuRelaxKernels(1), 1.0, 3)).hasMessageContaining("2 chained stages");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> DeviceStages.stage("fire(fmax=0.05, bogus=1)", lj, cpu,
                    d -> new CpuRelaxKernels(1), 1.0, 3)).hasMessageContaining("bogus");
        }
    }

    @Test
    void stillingerWeberAndTersoffOnADeviceStageGiveThePerSystemStagesBits() throws Exception {
        StillingerWeber sw = StillingerWeber.read(potential("Si.sw"));
        sameBits(sw::fresh, List.of(Lattices.diamond(0, 2, 5.431, 0, new int[] {14, 14}, 9), Lattices.cluster(1, 35, 2.35, new int[] {14, 14}, 0, 10)),
                Pipeline.Mode.SYNC);
        Tersoff sic = Tersoff.read(potential("SiC.tersoff"));
        sameBits(sic::fresh, List.of(Lattices.diamond(2, 2, 4.36, 0, new int[] {14, 6}, 11), Lattices.diamond(3, 2, 5.431, 0, new int[] {14, 14}, 12)),
                Pipeline.Mode.ASYNC_RECEIVE);
    }

    /// A model that hands every compute to `inner` and notes the size of each crew a stage lends it.
    private record Lending(Model inner, java.util.Set<Integer> crews) implements Model {
        @Override
        public void compute(AtomicSystem s) {
            inner.compute(s);
        }

        @Override
        public void compute(AtomicSystem s, dev.penstock.device.Crew crew) {
            crews.add(crew.size());
            inner.compute(s, crew);
        }

        @Override
        public double cutoff() {
            return inner.cutoff();
        }

        @Override
        public String refusal(AtomicSystem s) {
            return inner.refusal(s);
        }

        @Override
        public void forget(long id) {
            inner.forget(id);
        }
    }

    /// One large system (4,000 atoms: computed in parts, `RowParts`) beside small ones: on 2 or 3
    /// threads the stage lends the model its crew for the large one (one stage uses every core
    /// for it), and every system ends with the per-system stages' bits on 1, 2 or 3 threads.
    /// Fails if the stage computed the large system on one thread, or if its numbers depended on
    /// how many threads shared its parts.
    @Test
    void aLargeSystemsPartsShareTheStagesThreadsWithTheSameBitsOnAnyCount() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        String text = "fire(fmax=0.05, steps=6) + nve(dt=2, steps=4)";
        List<AtomicSystem> systems = List.of(Lattices.fcc(0, 10, 3.615, 0, true, new int[] {29, 29}, 0, 3),
                Lattices.cluster(1, 55, 2.55, new int[] {29, 29}, 0, 2), Lattices.cluster(2, 13, 2.55, new int[] {29, 29}, 0, 1));
        assertThat(dev.penstock.atoms.potential.RowParts.count(systems.getFirst().atoms())).isGreaterThan(1);
        java.util.function.Function<Pipeline<AtomicSystem>, Map<Long, String>> go = p -> {
            MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
            p.sizer(Systems.withListRadius(cu.cutoff())).batchCapacity(Capacity.of(6, 5000, Long.MAX_VALUE)).samples(copies(systems))
                    .results(sink);
            try (p) {
                p.run();
            }
            Map<Long, String> out = new TreeMap<>();
            for (AtomicSystem s : sink.samples()) {
                out.put(s.id(), state(s));
            }
            return out;
        };
        Map<Long, String> perSystem = go.apply(PerSystemStages.build(PipelineSpec.parse(text), cu::fresh, SEED, 1));
        assertThat(perSystem).hasSize(3);
        try (CpuDevice cpu = new CpuDevice()) {
            for (int threads : new int[] {1, 2, 3}) {
                java.util.Set<Integer> crews = java.util.concurrent.ConcurrentHashMap.newKeySet();
                Stage<AtomicSystem> stage = DeviceStages.stage(PipelineSpec.parse(text).getFirst(), new Lending(cu.fresh(), crews), cpu,
                        d -> new CpuRelaxKernels(threads), Double.POSITIVE_INFINITY, SEED);
                assertThat(go.apply(Pipeline.of(stage))).as("%d threads", threads).isEqualTo(perSystem);
                assertThat(crews).as("crews lent on %d threads", threads).isEqualTo(threads == 1 ? java.util.Set.of() : java.util.Set.of(threads));
            }
        }
    }

    @Test
    void anEamBatchRestoredFromACheckpointContinuesBitForBit() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        // systems large enough for binned neighbour lists, hot enough that atoms wander across
        // the bins: a list built where the restore happens (not where the saved one was built)
        // orders its pairs otherwise, and the bits part (checked: this fails without the
        // checkpoint's list, ModelTerms.restore)
        List<PipelineSpec.Call> calls = PipelineSpec.parse("fire(fmax=0.02, steps=300) + langevin(T=2500, dt=5, steps=80) + nve(dt=2, steps=10)")
                .getFirst();
        DeviceStageTest.restoresBitForBit(threads -> cpu -> DeviceStages.stage(calls, cu.fresh(), cpu, d -> new CpuRelaxKernels(threads),
                        Double.POSITIVE_INFINITY, SEED), Capacity.of(4, 1200, Long.MAX_VALUE),
                () -> List.of(Lattices.cluster(0, 201, 2.55, new int[] {29, 29}, 0, 1), Lattices.fcc(1, 5, 3.615, 0.8, true, new int[] {29, 29}, 0, 2),
                        Lattices.cluster(2, 13, 2.55, new int[] {29, 29}, 0, 3)), 3, 0, 1, 9, 60, 130);
    }

    @Test
    void aSystemTheModelRefusesIsQuarantinedInItsWordsAndTheOthersAreUntouched() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        List<AtomicSystem> good = List.of(Lattices.cluster(0, 13, 2.55, new int[] {29, 29}, 0, 1), Lattices.cluster(1, 38, 2.55, new int[] {29, 29}, 0, 2));
        AtomicSystem bad = Lattices.cluster(2, 13, 2.55, new int[] {29, 29}, 0, 3);
        double[] r = bad.positions();
        for (int d = 0; d < 3; d++) {
            r[3 + d] = r[d] + 1e-4; // atoms 0 and 1 on top of each other
        }
        List<AtomicSystem> all = List.of(good.get(0), bad, good.get(1));
        try (CpuDevice cpu = new CpuDevice()) {
            Map<Long, String> alone = run(onDevice(cpu, cu::fresh, 1), good, cu.cutoff(), Pipeline.Mode.SYNC);
            Map<Long, String> with = run(onDevice(cpu, cu::fresh, 2), all, cu.cutoff(), Pipeline.Mode.SYNC);
            assertThat(with.get(2L)).startsWith("quarantined: system 2: the model failed: ").contains("atoms 0 and 1 overlap");
            with.remove(2L);
            assertThat(with).isEqualTo(alone);
        }
    }

    @Test
    void kernelsThatRunNoModelAreRefusedWhenTheBatchIsMadeNamingTheStage() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        try (CpuDevice cpu = new CpuDevice()) {
            CpuRelaxKernels real = new CpuRelaxKernels(1);
            RelaxKernels pairsOnly = (RelaxKernels) Proxy.newProxyInstance(RelaxKernels.class.getClassLoader(), new Class<?>[] {RelaxKernels.class},
                    (proxy, m, args) -> {
                        if (m.getName().equals("runs")) {
                            return false;
                        }
                        try {
                            return m.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            Stage<AtomicSystem> stage = DeviceStages.stage(PipelineSpec.parse("fire(fmax=0.05)").getFirst(), cu.fresh(), cpu, d -> pairsOnly,
                    Double.POSITIVE_INFINITY, SEED);
            Pipeline<AtomicSystem> p = Pipeline.of(stage).sizer(Systems.withListRadius(cu.cutoff())).batchCapacity(Capacity.of(4, 100, Long.MAX_VALUE))
                    .samples(List.of(Lattices.cluster(0, 13, 2.55, new int[] {29, 29}, 0, 1))).results(MemorySink.unbounded("r"));
            try (p) {
                assertThatThrownBy(p::run).hasStackTraceContaining("stage 'fire' on cpu: its kernels do not run eam(file=Cu_u3.eam)");
            }
        }
    }
}
