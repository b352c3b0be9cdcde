package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.Methods;
import dev.penstock.atoms.stage.ModelEvaluator;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.CpuDevice;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.StageBatch;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/// A Langevin (BAOAB) device stage: the per-system stage's noise (keyed by seed, system id and
/// step), so its trajectories to rounding; bit for bit its own alone, in any batch, on any
/// threads and in every mode; restored from a checkpoint bit for bit; kernels without the step
/// refused.
class LangevinDeviceStageTest {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);

    private static Stage<AtomicSystem> deviceLangevin(CpuDevice cpu, int threads, long steps) {
        return DeviceStages.langevin(0.002, 0.4, 2.0, 99, steps, LJ, cpu, d -> PairSummingKernels.summingPairs(threads), Double.POSITIVE_INFINITY);
    }

    @Test
    void aDeviceLangevinStageDrawsThePerSampleNoiseAndFollowsItsTrajectoriesToRounding() {
        Stage<AtomicSystem> perSample = Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), Methods.langevin(0.002, 0.4, 2.0, 99, 200));
        Map<Long, String> reference = DeviceStageTest.run(DeviceStageTest.warm(20, 3), Pipeline.Mode.SYNC, perSample, null, null);
        Map<Long, String> onDevice;
        try (CpuDevice cpu = new CpuDevice()) {
            onDevice = DeviceStageTest.run(DeviceStageTest.warm(20, 3), Pipeline.Mode.SYNC, deviceLangevin(cpu, 2, 200), null, null);
        }
        Map<Long, String> otherSeed;
        try (CpuDevice cpu = new CpuDevice()) {
            otherSeed = DeviceStageTest.run(DeviceStageTest.warm(20, 3), Pipeline.Mode.SYNC, DeviceStages.langevin(0.002, 0.4, 2.0, 100, 200, LJ, cpu,
                    d -> PairSummingKernels.summingPairs(1), Double.POSITIVE_INFINITY), null, null);
        }
        assertThat(onDevice.keySet()).isEqualTo(reference.keySet()).hasSize(20);
        for (long id : reference.keySet()) {
            double a = Double.parseDouble(reference.get(id).split(" ")[0]);
            double b = Double.parseDouble(onDevice.get(id).split(" ")[0]);
            double c = Double.parseDouble(otherSeed.get(id).split(" ")[0]);
            assertThat(Math.abs(a - b) / Math.abs(a)).as("system %d after 200 Langevin steps", id).isLessThan(1e-8);
            assertThat(Math.abs(a - c) / Math.abs(a)).as("system %d: another seed, other noise", id).isGreaterThan(1e-6);
        }
    }

    @Test
    void aSystemsLangevinTrajectoryIsBitForBitItsOwnAloneOrInABatchOnAnyThreadsAndInEveryModeOfAChain() {
        Map<Long, String> batch;
        try (CpuDevice cpu = new CpuDevice()) {
            batch = DeviceStageTest.run(DeviceStageTest.warm(12, 5), Pipeline.Mode.SYNC, deviceLangevin(cpu, 2, 150), null, null);
        }
        List<AtomicSystem> all = DeviceStageTest.warm(12, 5);
        for (int k : new int[] {0, 7, 11}) {
            try (CpuDevice cpu = new CpuDevice()) {
                Map<Long, String> alone = DeviceStageTest.run(List.of(all.get(k)), Pipeline.Mode.SYNC, deviceLangevin(cpu, 1, 150), null, null);
                assertThat(alone.get(all.get(k).id())).as("system %d alone", all.get(k).id()).isEqualTo(batch.get(all.get(k).id()));
            }
        }
        // fire | langevin | nve, each on the device, in every mode: the same numbers
        Map<Long, String> chained = null;
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            try (CpuDevice cpu = new CpuDevice()) {
                Stage<AtomicSystem> nve = DeviceStages.nve(0.002, 50, LJ, cpu, d -> PairSummingKernels.summingPairs(1));
                MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
                Pipeline<AtomicSystem> p = Pipeline.of(DeviceStageTest.deviceFire(cpu, 1)).then(deviceLangevin(cpu, 2, 80)).then(nve);
                p.sizer(Systems.withListRadius(2.8)).batchCapacity(Capacity.of(64, 900, Long.MAX_VALUE)).samples(DeviceStageTest.warm(16, 9)).mode(mode)
                        .results(sink);
                try (p) {
                    p.run();
                }
                Map<Long, String> got = new TreeMap<>();
                for (AtomicSystem s : sink.samples()) {
                    got.put(s.id(), DeviceStageTest.state(s));
                }
                assertThat(got).hasSize(16);
                if (chained == null) {
                    chained = got;
                }
                assertThat(got).as("mode %s", mode).isEqualTo(chained);
            }
        }
    }

    @Test
    void aDeviceLangevinBatchRestoredFromACheckpointContinuesBitForBit() throws Exception {
        DeviceStageTest.restoresBitForBit(threads -> cpu -> deviceLangevin(cpu, threads, 60), Capacity.of(10, 1200, Long.MAX_VALUE), () -> DeviceStageTest.warm(8, 5), 8,
                0, 1, 33);
    }

    @Test
    void kernelsWithoutALangevinStepAreRefusedWhenTheBatchIsMade() {
        try (CpuDevice cpu = new CpuDevice()) {
            PairSummingKernels cpuKernels = PairSummingKernels.summingPairs(1);
            RelaxKernels plain = new RelaxKernels() { // the CPU's kernels less their Langevin step
                @Override
                public void evaluate(dev.penstock.device.Stream st, RelaxColumns c, int systems, int atoms, Pair pair) {
                    cpuKernels.evaluate(st, c, systems, atoms, pair);
                }

                @Override
                public void fireStep(dev.penstock.device.Stream st, RelaxColumns c, int systems, boolean massWeighted, double maxStep2,
                                     int sub) {
                    cpuKernels.fireStep(st, c, systems, massWeighted, maxStep2, sub);
                }

                @Override
                public void fire2Step(dev.penstock.device.Stream st, RelaxColumns c, int systems, double maxStep2, int sub) {
                    cpuKernels.fire2Step(st, c, systems, maxStep2, sub);
                }

                @Override
                public void nveBefore(dev.penstock.device.Stream st, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
                    cpuKernels.nveBefore(st, c, systems, atoms, maxStep2, sub);
                }

                @Override
                public void nveAfter(dev.penstock.device.Stream st, RelaxColumns c, int systems, int atoms, int sub) {
                    cpuKernels.nveAfter(st, c, systems, atoms, sub);
                }

                @Override
                public void check(dev.penstock.device.Stream st, RelaxColumns c, int systems, double fmax, double tol, int budget, int sub) {
                    cpuKernels.check(st, c, systems, fmax, tol, budget, sub);
                }

                @Override
                public void gather(dev.penstock.device.Stream st, RelaxColumns from, RelaxColumns to, dev.penstock.memory.Block map, int systems,
                                   int atoms) {
                    cpuKernels.gather(st, from, to, map, systems, atoms);
                }

                @Override
                public void pickSystems(dev.penstock.device.Stream st, RelaxColumns from, RelaxColumns to, dev.penstock.memory.Block map,
                                        int systems) {
                    cpuKernels.pickSystems(st, from, to, map, systems);
                }

                @Override
                public void putSystems(dev.penstock.device.Stream st, RelaxColumns from, RelaxColumns to, dev.penstock.memory.Block map,
                                       int systems) {
                    cpuKernels.putSystems(st, from, to, map, systems);
                }
            };
            Stage<AtomicSystem> stage = DeviceStages.langevin(0.002, 0.4, 2.0, 1, 10, LJ, cpu, d -> plain, Double.POSITIVE_INFINITY);
            assertThatThrownBy(() -> new StageBatch<>(stage, Systems.withListRadius(2.8), Capacity.of(10, 500, Long.MAX_VALUE)))
                    .hasMessageContaining("these kernels have no Langevin step");
            // a pipeline's fused langevin call on them too, before any step
            var call = dev.penstock.atoms.stage.PipelineSpec.parse("fire(fmax=0.01) + langevin(T=300, dt=1, steps=10)").getFirst();
            Stage<AtomicSystem> fused = DeviceStages.stage(call, LJ, cpu, d -> plain, Double.POSITIVE_INFINITY, 1);
            assertThatThrownBy(() -> new StageBatch<>(fused, Systems.withListRadius(2.8), Capacity.of(10, 500, Long.MAX_VALUE)))
                    .hasMessage("stage 'fire+langevin' on cpu: these kernels have no Langevin step");
        }
    }
}
