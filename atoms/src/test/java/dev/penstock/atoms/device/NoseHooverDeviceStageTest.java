package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.integrate.Units;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.device.CpuDevice;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Hook;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/// A Nosé–Hoover chain (`nvt`) device stage: bit for bit its own alone, in any batch and on any
/// threads; restored from a checkpoint bit for bit; the canonical temperature distribution (mean
/// and variance) over a 20 ps run; its conserved quantity kept. (Against LAMMPS: `NoseHooverVersusLammpsTest`.)
class NoseHooverDeviceStageTest {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);

    private static Stage<AtomicSystem> deviceNvt(CpuDevice cpu, int threads, long steps) {
        return DeviceStages.nvt(new SubStage.NoseHoover(0.002, 0.4, 0.2, 3, 1, steps), LJ, cpu, d -> PairSummingKernels.summingPairs(threads),
                Double.POSITIVE_INFINITY);
    }

    @Test
    void aSystemsTrajectoryIsBitForBitItsOwnAloneOrInABatchOnAnyThreads() {
        Map<Long, String> batch;
        try (CpuDevice cpu = new CpuDevice()) {
            batch = DeviceStageTest.run(DeviceStageTest.warm(12, 5), Pipeline.Mode.SYNC, deviceNvt(cpu, 2, 150), null, null);
        }
        assertThat(batch).hasSize(12);
        List<AtomicSystem> all = DeviceStageTest.warm(12, 5);
        for (int k : new int[] {0, 7, 11}) {
            try (CpuDevice cpu = new CpuDevice()) {
                Map<Long, String> alone = DeviceStageTest.run(List.of(all.get(k)), Pipeline.Mode.SYNC, deviceNvt(cpu, 1, 150), null, null);
                assertThat(alone.get(all.get(k).id())).as("system %d alone", all.get(k).id()).isEqualTo(batch.get(all.get(k).id()));
            }
        }
    }

    @Test
    void aDeviceNoseHooverBatchRestoredFromACheckpointContinuesBitForBit() throws Exception {
        DeviceStageTest.restoresBitForBit(threads -> cpu -> deviceNvt(cpu, threads, 60), Capacity.of(10, 1200, Long.MAX_VALUE),
                () -> DeviceStageTest.warm(8, 5), 8, 0, 1, 33);
    }

    /// Argon (ε 0.0104 eV, σ 3.4 Å, 39.948 u) as a 108-atom fcc crystal, periodic, 8 copies with
    /// their own Maxwell–Boltzmann velocities at 60 K (no net momentum), 20 ps of `nvt` at 60 K
    /// (dt 5 fs, tdamp 0.5 ps): after 2 ps, the kinetic temperature's mean is 60 K within 2% and its
    /// variance 2T²/(3N − 3) within 25% (the canonical ensemble's; a velocity rescaling would give
    /// almost none, a thermostat too weak the microcanonical one); the conserved quantity drifts
    /// less than 2e-3 of the kinetic energy (dt 5 fs: 7e-4 measured).
    /// The kinetic temperature with 3N − 3 degrees of freedom (the thermostat's), K.
    private static double kelvin(AtomicSystem s) {
        double[] v = s.velocities();
        double mv2 = 0;
        for (int i = 0; i < s.atoms(); i++) {
            mv2 += s.masses()[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        }
        return mv2 / ((3.0 * s.atoms() - 3) * Units.KB_EV_PER_K);
    }

    @Test
    void twentyPicosecondsOfNvtSampleTheCanonicalTemperatureDistribution() {
        double kelvin = 60;
        double kT = Units.KB_EV_PER_K * kelvin;
        LennardJones ar = new LennardJones(0.0104, 3.4, 8.5, true);
        double a = 5.26;
        List<AtomicSystem> systems = new ArrayList<>();
        SplittableRandom rnd = new SplittableRandom(2026);
        for (int copy = 0; copy < 8; copy++) {
            int n = 108;
            double[] r = new double[3 * n];
            double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
            int p = 0;
            for (int x = 0; x < 3; x++) {
                for (int y = 0; y < 3; y++) {
                    for (int z = 0; z < 3; z++) {
                        for (double[] b : basis) {
                            r[3 * p] = (x + b[0]) * a;
                            r[3 * p + 1] = (y + b[1]) * a;
                            r[3 * p + 2] = (z + b[2]) * a;
                            p++;
                        }
                    }
                }
            }
            double[] m = new double[n];
            java.util.Arrays.fill(m, 39.948);
            int[] zs = new int[n];
            java.util.Arrays.fill(zs, 18);
            AtomicSystem s = new AtomicSystem(copy, r, m, zs, Cell.of(new double[] {3 * a, 0, 0, 0, 3 * a, 0, 0, 0, 3 * a},
                    new boolean[] {true, true, true}));
            double[] v = s.velocities();
            double[] mean = new double[3];
            for (int i = 0; i < 3 * n; i++) {
                v[i] = rnd.nextGaussian() * Math.sqrt(kT / 39.948);
                mean[i % 3] += v[i] / n;
            }
            for (int i = 0; i < 3 * n; i++) {
                v[i] -= mean[i % 3];
            }
            systems.add(s);
        }
        double dt = Units.fsToTau(5);
        int steps = 4000;
        int skip = 400;
        List<Double> temperatures = java.util.Collections.synchronizedList(new ArrayList<>());
        double[] drift = new double[1];
        Hook<AtomicSystem> hook = new Hook<>() {
            @Override
            public void onStep(int stage, String name, long step, List<AtomicSystem> samples) {
                for (AtomicSystem s : samples) {
                    if (s.heldStep() > skip) {
                        temperatures.add(kelvin(s));
                    }
                }
            }

            @Override
            public void onEvent(int stage, dev.penstock.stage.Event<AtomicSystem> e) {
                if (e.left()) {
                    double ke = 0.5 * kelvin(e.sample()) * (3 * 108 - 3) * Units.KB_EV_PER_K;
                    drift[0] = Math.max(drift[0], Math.abs(Double.parseDouble(e.sample().info().get("conserved_energy_drift"))) / ke);
                }
            }
        };
        try (CpuDevice cpu = new CpuDevice();
             Pipeline<AtomicSystem> p = Pipeline.of(DeviceStages.nvt(new SubStage.NoseHoover(dt, kT, Units.fsToTau(500), 3, 1, steps), ar, cpu,
                             d -> new CpuRelaxKernels(2), Double.POSITIVE_INFINITY)).sizer(Systems.withListRadius(ar.cutoff()))
                     .batchCapacity(Capacity.of(8, 864, Long.MAX_VALUE)).samples(systems).results(MemorySink.unbounded("r")).hook(hook)) {
            p.run();
        }
        assertThat(temperatures).hasSize(8 * (steps - skip - 1)); // steps skip + 1 … steps − 1 (the last is the exit's)
        double mean = temperatures.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        double variance = temperatures.stream().mapToDouble(t -> (t - mean) * (t - mean)).sum() / (temperatures.size() - 1);
        double canonical = 2 * kelvin * kelvin / (3 * 108 - 3);
        System.out.printf(java.util.Locale.ROOT, "nvt 20 ps, 8 × 108 argon atoms at %.0f K: mean T %.3f K, variance %.3f K² (canonical %.3f), "
                + "conserved quantity's drift %.2e of the kinetic energy%n", kelvin, mean, variance, canonical, drift[0]);
        assertThat(mean).as("mean temperature (K)").isCloseTo(kelvin, org.assertj.core.data.Offset.offset(0.02 * kelvin));
        assertThat(variance / canonical).as("variance against the canonical 2T²/(3N − 3)").isBetween(0.75, 1.25);
        assertThat(drift[0]).as("the conserved quantity's drift, in kinetic energies (measured 7.0e-4)").isLessThan(2e-3);
    }
}
