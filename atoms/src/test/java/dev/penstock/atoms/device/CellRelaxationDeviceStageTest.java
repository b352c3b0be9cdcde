package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
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

/// A variable-cell relaxation (`fire_cell`, `fire2_cell`: `SubStage.CellRelaxation`) device stage:
/// a system's steps and cell bit for bit its own alone or batched on any threads; restored from a
/// checkpoint mid-run bit for bit; relaxed to the pressure asked (the filter's cell rows below
/// fmax); a free system refused before the run, naming it; kernels without it refused when the
/// batch is made. (Against ASE's `FIRE(UnitCellFilter)`: python/tests/test_atoms.py.)
class CellRelaxationDeviceStageTest {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);

    private static SubStage.CellRelaxation relax(boolean fire2, double p) {
        return new SubStage.CellRelaxation(new Convergence(1e-3, 0, 3000), p, new int[] {1, 1, 1, 1, 1, 1}, false, fire2);
    }

    private static Stage<AtomicSystem> stage(CpuDevice cpu, SubStage.CellRelaxation r, int threads) {
        return DeviceStages.stage(List.of(new dev.penstock.atoms.stage.PipelineSpec.Call(r.name(), Map.of("fmax", "0.001", "steps", "3000",
                "P", Double.toString(r.p() * dev.penstock.atoms.integrate.Units.BAR_PER_EV_PER_A3)), 0)), LJ, cpu,
                d -> new CpuRelaxKernels(threads), Double.POSITIVE_INFINITY, 0);
    }

    private static Map<Long, String> run(List<AtomicSystem> systems, Stage<AtomicSystem> stage) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
        try (Pipeline<AtomicSystem> p = Pipeline.of(stage).sizer(Systems.withListRadius(2.8)).batchCapacity(Capacity.of(64, 900, Long.MAX_VALUE))
                .samples(systems).results(sink).hook(dev.penstock.atoms.stage.History.hook(k -> { }))) {
            p.run();
        }
        Map<Long, String> out = new TreeMap<>();
        for (AtomicSystem s : sink.samples()) {
            out.put(s.id(), DeviceStageTest.state(s) + " " + s.cell() + " " + s.info().get("stages") + " " + s.info().get("outcome"));
        }
        return out;
    }

    @Test
    void aSystemsStepsAndCellAreBitForBitItsOwnAloneOrBatchedAndItReachesThePressure() {
        for (boolean fire2 : new boolean[] {false, true}) {
            Map<Long, String> batch;
            try (CpuDevice cpu = new CpuDevice()) {
                batch = run(BarostatDeviceStageTest.crystals(6, 3), stage(cpu, relax(fire2, 0.5), 2));
            }
            assertThat(batch).hasSize(6).allSatisfy((id, s) -> assertThat(s).endsWith("converged"));
            List<AtomicSystem> all = BarostatDeviceStageTest.crystals(6, 3);
            for (int k : new int[] {1, 4}) {
                try (CpuDevice cpu = new CpuDevice()) {
                    assertThat(run(List.of(all.get(k)), stage(cpu, relax(fire2, 0.5), 1)).get((long) k)).as("system %d alone", k)
                            .isEqualTo(batch.get((long) k));
                }
            }
        }
        // converged at P: W_dd / V (ASE's stress −W/V) is P to the criterion's share (the cell's rows: (W − PV)/N < fmax)
        AtomicSystem s = BarostatDeviceStageTest.crystals(1, 4).getFirst();
        double v0 = s.cell().volume();
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
        try (CpuDevice cpu = new CpuDevice();
             Pipeline<AtomicSystem> p = Pipeline.of(stage(cpu, relax(false, 0.5), 1)).sizer(Systems.withListRadius(2.8))
                     .batchCapacity(Capacity.of(4, 900, Long.MAX_VALUE)).samples(List.of(s)).results(sink)) {
            p.run();
        }
        AtomicSystem out = sink.samples().getFirst();
        double[] w = out.virial();
        assertThat(w).as("the stage asked the pair model for its virial").isNotNull();
        double volume = out.cell().volume();
        for (int d = 0; d < 3; d++) {
            assertThat(Math.abs(w[4 * d] / volume - 0.5)).as("W_%d%d / V at P", d, d).isLessThan(2e-3 * out.atoms() / volume);
        }
        assertThat(Math.abs(volume / v0 - 1)).as("the cell relaxed").isGreaterThan(1e-3);
    }

    @Test
    void aCellRelaxationRestoredFromACheckpointContinuesBitForBit() throws Exception {
        for (boolean fire2 : new boolean[] {false, true}) {
            DeviceStageTest.restoresBitForBit(threads -> cpu -> stage(cpu, relax(fire2, -0.3), threads), Capacity.of(10, 1000, Long.MAX_VALUE),
                    () -> BarostatDeviceStageTest.crystals(8, 9), 8, 0, 1, 23);
        }
    }

    @Test
    void aFreeSystemAndKernelsWithoutItAreRefused() {
        AtomicSystem cluster = Clusters.inflight(1, 3).getFirst();
        try (CpuDevice cpu = new CpuDevice()) {
            assertThatThrownBy(() -> run(List.of(cluster), stage(cpu, relax(false, 0), 1))).hasMessageContaining("system " + cluster.id())
                    .hasMessageContaining("stage 'fire_cell' relaxes a periodic cell");
            assertThatThrownBy(() -> new StageBatch<>(DeviceStages.stage(List.of(new dev.penstock.atoms.stage.PipelineSpec.Call("fire2_cell",
                    Map.of("fmax", "0.01"), 0)), LJ, cpu, d -> PairSummingKernels.summingPairs(1), Double.POSITIVE_INFINITY, 0),
                    Systems.withListRadius(2.8), Capacity.of(8, 900, Long.MAX_VALUE))).hasMessageContaining("no variable-cell relaxation");
        }
    }
}
