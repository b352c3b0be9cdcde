package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.PerSystemStages;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Memory;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/// Fused sub-stages in one packed device batch (`fire + langevin + nve`): each system's sub-stage
/// a column, each step every occupied sub-stage's kernels over its systems only, around one
/// shared evaluation, a finished system entering the next sub-stage at once (asked on entry) —
/// the numbers and step counts of the same stages chained, and of the per-system fused stage.
class FusedDeviceStageTest {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);
    private static final String FIRE = "fire(fmax=0.05, steps=400)";
    private static final String LANGEVIN = "langevin(T=300, dt=0.05, steps=60, friction=0.05)";
    private static final String NVE = "nve(dt=0.05, steps=40)";

    /// The stages of `pipeline` (PipelineSpec text) on `cpu`, or per system when `cpu` is null.
    private static List<Stage<AtomicSystem>> stages(String pipeline, CpuDevice cpu, int threads) {
        List<Stage<AtomicSystem>> out = new ArrayList<>();
        for (List<PipelineSpec.Call> fused : PipelineSpec.parse(pipeline)) {
            out.add(cpu == null ? PerSystemStages.stage(fused, () -> new LennardJones(1, 1, 2.5, true), 7)
                    : DeviceStages.stage(fused, LJ, cpu, d -> PairSummingKernels.summingPairs(threads), Double.POSITIVE_INFINITY, 7));
        }
        return out;
    }

    /// Each delivered system's state, and every system's sub-stage exits ("fire:12 langevin:60 …").
    private record Outcome(Map<Long, String> states, Map<Long, String> steps) {
    }

    private static Outcome run(List<AtomicSystem> systems, Pipeline.Mode mode, List<Stage<AtomicSystem>> stages) {
        Map<Long, String> steps = new TreeMap<>();
        Hook<AtomicSystem> count = new Hook<>() {
            @Override
            public void onEvent(int stage, Event<AtomicSystem> e) {
                if (e.kind() == Event.Kind.GRADUATED || e.kind() == Event.Kind.EXITED) {
                    synchronized (steps) {
                        steps.merge(e.sample().id(), e.method() + ":" + e.steps(), (a, b) -> a + " " + b);
                    }
                }
            }
        };
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
        Pipeline<AtomicSystem> chain = Pipeline.of(stages.getFirst());
        for (Stage<AtomicSystem> s : stages.subList(1, stages.size())) {
            chain = chain.then(s);
        }
        Pipeline<AtomicSystem> p = chain;
        p.sizer(Systems.withListRadius(2.8)).batchCapacity(Capacity.of(64, 900, Long.MAX_VALUE)).samples(systems).mode(mode).results(sink)
                .hook(count);
        try (p) {
            p.run();
        }
        Map<Long, String> states = new TreeMap<>();
        for (AtomicSystem s : sink.samples()) {
            states.put(s.id(), DeviceStageTest.state(s));
        }
        return new Outcome(states, steps);
    }

    @Test
    void fusedOnTheDeviceGivesEverySystemTheNumbersAndStepsOfTheChainedDeviceStagesInEveryMode() {
        String chained = FIRE + " | " + LANGEVIN + " | " + NVE;
        String fused = FIRE + " + " + LANGEVIN + " + " + NVE;
        Outcome reference;
        try (CpuDevice cpu = new CpuDevice()) {
            reference = run(DeviceStageTest.warm(24, 3), Pipeline.Mode.SYNC, stages(chained, cpu, 1));
        }
        assertThat(reference.states()).hasSize(24);
        assertThat(reference.steps().values()).allMatch(s -> s.matches("fire:\\d+ langevin:60 nve:40"));
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            for (int threads : new int[] {1, 2}) {
                try (CpuDevice cpu = new CpuDevice()) {
                    Outcome got = run(DeviceStageTest.warm(24, 3), mode, stages(fused, cpu, threads));
                    assertThat(got.states()).as("%s, %d threads", mode, threads).isEqualTo(reference.states());
                    assertThat(got.steps()).as("%s, %d threads", mode, threads).isEqualTo(reference.steps());
                }
            }
        }
        // the per-system fused stage: the same steps, the same energies to rounding
        Outcome perSystem = run(DeviceStageTest.warm(24, 3), Pipeline.Mode.SYNC, stages(fused, null, 1));
        assertThat(perSystem.steps()).isEqualTo(reference.steps());
        for (long id : reference.states().keySet()) {
            double a = Double.parseDouble(reference.states().get(id).split(" ")[0]);
            double b = Double.parseDouble(perSystem.states().get(id).split(" ")[0]);
            assertThat(Math.abs(a - b) / Math.abs(b)).as("system %d", id).isLessThan(1e-8);
        }
        assertThat(Memory.liveArenas()).isZero();
    }

    @Test
    void aSystemFinishedOnEntryPassesThroughTheNextSubStagesInTheSameStepAsThePerSystemStage() {
        // the second fire is met on entry (fmax 0.01 < 0.5), nve(steps=0) ends on entry: both exit with 0 steps
        String fused = "fire(fmax=0.01, steps=2000) + fire(fmax=0.5) + nve(dt=0.05, steps=0) + nve(dt=0.05, steps=25)";
        Outcome device;
        try (CpuDevice cpu = new CpuDevice()) {
            device = run(DeviceStageTest.warm(16, 8), Pipeline.Mode.SYNC, stages(fused, cpu, 1));
        }
        Outcome perSystem = run(DeviceStageTest.warm(16, 8), Pipeline.Mode.SYNC, stages(fused, null, 1));
        assertThat(device.steps()).hasSize(16).isEqualTo(perSystem.steps());
        assertThat(device.steps().values()).allMatch(s -> s.matches("fire:\\d+ fire:0 nve:0 nve:25"));
        for (long id : perSystem.states().keySet()) {
            double a = Double.parseDouble(device.states().get(id).split(" ")[0]);
            double b = Double.parseDouble(perSystem.states().get(id).split(" ")[0]);
            assertThat(Math.abs(a - b) / Math.abs(b)).as("system %d", id).isLessThan(1e-8);
        }
    }

    @Test
    void aFusedDeviceBatchRestoredFromACheckpointWithSystemsInEverySubStageContinuesBitForBit() throws Exception {
        DeviceStageTest.restoresBitForBit(threads -> cpu -> stages(FIRE + " + " + LANGEVIN + " + " + NVE, cpu, threads).getFirst(),
                Capacity.of(10, 1200, Long.MAX_VALUE), () -> DeviceStageTest.warm(10, 5), 10, 0, 1, 20, 70, 120);
    }
}
