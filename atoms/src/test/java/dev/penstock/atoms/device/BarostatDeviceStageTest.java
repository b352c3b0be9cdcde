package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.integrate.Mtk;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.History;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Hook;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/// An MTK barostat (`npt`, `nph`) device stage: a system's trajectory and cell bit for bit its own
/// alone, in any batch and on any threads; restored from a checkpoint mid-run bit for bit (the
/// neighbour lists' build cells included); systems it cannot take refused before the run; and a
/// long `npt` run's mean pressure within its statistical error of the target. (Against LAMMPS:
/// `BarostatVersusLammpsTest`.)
public class BarostatDeviceStageTest {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);

    /// `count` periodic LJ crystals (108 atoms, density 0.8442, each cell sheared its own way),
    /// every position off its site by up to ±0.05, velocities Gaussian of variance 0.5.
    public static List<AtomicSystem> crystals(int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<AtomicSystem> out = new ArrayList<>();
        double a = Math.cbrt(4 / 0.8442);
        for (int c = 0; c < count; c++) {
            double xy = rnd.nextDouble(-0.4, 0.4);
            double xz = rnd.nextDouble(-0.4, 0.4);
            double yz = rnd.nextDouble(-0.4, 0.4);
            double[] h = {3 * a, 0, 0, xy, 3 * a, 0, xz, yz, 3 * a};
            double[] r = new double[3 * 108];
            double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
            int p = 0;
            for (int x = 0; x < 3; x++) {
                for (int y = 0; y < 3; y++) {
                    for (int z = 0; z < 3; z++) {
                        for (double[] b : basis) {
                            double s0 = (x + b[0]) / 3;
                            double s1 = (y + b[1]) / 3;
                            double s2 = (z + b[2]) / 3;
                            for (int e = 0; e < 3; e++) {
                                r[3 * p + e] = s0 * h[e] + s1 * h[3 + e] + s2 * h[6 + e] + rnd.nextDouble(-0.05, 0.05);
                            }
                            p++;
                        }
                    }
                }
            }
            double[] m = new double[108];
            Arrays.fill(m, 1);
            AtomicSystem s = new AtomicSystem(c, r, m, new int[108], Cell.of(h, new boolean[] {true, true, true}));
            for (int i = 0; i < s.velocities().length; i++) {
                s.velocities()[i] = Math.sqrt(0.5) * rnd.nextGaussian();
            }
            out.add(s);
        }
        return out;
    }

    private static SubStage.Barostat npt(int couple, long steps) {
        return new SubStage.Barostat(0.004, true, 0.7, 0.4, 3, 1, 0, new Mtk.Settings(couple, 0.5, 1 / 2.0, 3), steps);
    }

    private static Stage<AtomicSystem> stage(CpuDevice cpu, SubStage.Barostat b, int threads) {
        return DeviceStages.barostat(b, LJ, cpu, d -> new CpuRelaxKernels(threads), Double.POSITIVE_INFINITY);
    }

    /// Each delivered system's energy, positions, forces and cell; the quarantined ones' diagnoses.
    private static Map<Long, String> run(List<AtomicSystem> systems, Stage<AtomicSystem> stage) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
        Summary<AtomicSystem> summary;
        try (Pipeline<AtomicSystem> p = Pipeline.of(stage).sizer(Systems.withListRadius(2.8)).batchCapacity(Capacity.of(64, 900, Long.MAX_VALUE))
                .samples(systems).results(sink)) {
            summary = p.run();
        }
        Map<Long, String> out = new TreeMap<>();
        for (AtomicSystem s : sink.samples()) {
            out.put(s.id(), DeviceStageTest.state(s) + " " + s.cell() + " " + s.info().get("conserved_energy") + " " + s.info().get("pressure"));
        }
        for (var q : summary.quarantined()) {
            out.put(q.sample().id(), "quarantined: " + q.diagnosis());
        }
        return out;
    }

    @Test
    void aSystemsTrajectoryAndCellAreBitForBitItsOwnAloneOrInABatchOnAnyThreads() {
        for (int couple : new int[] {Mtk.ISO, Mtk.TRI}) {
            Map<Long, String> batch;
            try (CpuDevice cpu = new CpuDevice()) {
                batch = run(crystals(8, 5), stage(cpu, npt(couple, 120), 2));
            }
            assertThat(batch).hasSize(8);
            List<AtomicSystem> all = crystals(8, 5);
            for (int k : new int[] {0, 5}) {
                try (CpuDevice cpu = new CpuDevice()) {
                    Map<Long, String> alone = run(List.of(all.get(k)), stage(cpu, npt(couple, 120), 1));
                    assertThat(alone.get((long) k)).as("system %d alone, couple %d", k, couple).isEqualTo(batch.get((long) k))
                            .doesNotContain("quarantined");
                }
            }
            AtomicSystem before = crystals(8, 5).getFirst();
            assertThat(batch.get(0L)).as("the cell moved").doesNotContain(before.cell().toString());
        }
    }

    @Test
    void aBarostatBatchRestoredFromACheckpointContinuesBitForBit() throws Exception {
        DeviceStageTest.restoresBitForBit(threads -> cpu -> stage(cpu, npt(Mtk.TRI, 90), threads), Capacity.of(10, 1000, Long.MAX_VALUE),
                () -> crystals(8, 7), 8, 0, 1, 37);
        DeviceStageTest.restoresBitForBit(threads -> cpu -> stage(cpu, new SubStage.Barostat(0.004, false, 0, 1, 1, 1, 0,
                new Mtk.Settings(Mtk.ANISO, -0.2, 1 / 2.0, 2), 90), threads), Capacity.of(10, 1000, Long.MAX_VALUE), () -> crystals(8, 8), 8, 45);
    }

    @Test
    void systemsABarostatCannotTakeAreRefusedBeforeTheRunNamingThem() {
        AtomicSystem cluster = Clusters.inflight(1, 3).getFirst(); // free
        double[] rotated = {0, 3, 3, 3, 0, 3, 3, 3, 0}; // a primitive fcc cell: not LAMMPS's orientation
        AtomicSystem primitive = new AtomicSystem(9, new double[] {0, 0, 0}, new double[] {1}, new int[1], Cell.of(rotated,
                new boolean[] {true, true, true}));
        try (CpuDevice cpu = new CpuDevice()) {
            assertThatThrownBy(() -> run(List.of(cluster), stage(cpu, npt(Mtk.ISO, 10), 1))).hasMessageContaining("system " + cluster.id())
                    .hasMessageContaining("not periodic along every axis");
            assertThatThrownBy(() -> run(List.of(primitive), stage(cpu, npt(Mtk.ANISO, 10), 1))).hasMessageContaining("system 9")
                    .hasMessageContaining("LAMMPS's orientation");
        }
        // couple=iso takes any orientation: a primitive cell is scaled whole
        AtomicSystem fcc = crystals(1, 3).getFirst();
        try (CpuDevice cpu = new CpuDevice()) {
            assertThatThrownBy(() -> new dev.penstock.stage.StageBatch<>(DeviceStages.barostat(npt(Mtk.ISO, 10), LJ, cpu,
                    d -> PairSummingKernels.summingPairs(1), Double.POSITIVE_INFINITY), Systems.withListRadius(2.8),
                    Capacity.of(8, 900, Long.MAX_VALUE))).hasMessageContaining("no barostat");
            assertThat(run(List.of(fcc), stage(cpu, npt(Mtk.ISO, 10), 1)).get(0L)).doesNotContain("quarantined");
        }
    }

    /// A barostat driven to blow up (a million bar through a 4-step pdamp) quarantines each system
    /// it wrecks with a diagnosis naming it (an atom flung, or a cell that is none): nothing throws.
    @Test
    void aBarostatThatBlowsUpQuarantinesItsSystemsAndNothingElse() {
        SubStage.Barostat wild = new SubStage.Barostat(0.004, true, 0.7, 0.4, 3, 1, 0, new Mtk.Settings(Mtk.ISO, 1e6, 1 / 0.016, 3), 200);
        Map<Long, String> out;
        try (CpuDevice cpu = new CpuDevice()) {
            out = run(crystals(3, 13), DeviceStages.barostat(wild, LJ, cpu, d -> new CpuRelaxKernels(1), 1.0));
        }
        assertThat(out).hasSize(3).allSatisfy((id, s) -> assertThat(s).startsWith("quarantined: system " + id)
                .containsAnyOf("its cell is no longer one", "moved more than", "non-finite"));
    }

    /// 8 copper crystals (108 atoms, EAM `Cu_u3.eam`, each cell sheared its own way) under `npt iso`
    /// at 500 K and 10 kbar (dt 2 fs, tdamp 0.1 ps, pdamp 1 ps): after 2 ps of equilibration, the
    /// mean of each system's pressure (kinetic part included) over 10 ps, averaged over the eight,
    /// is 10 kbar within three standard errors of that average; the conserved quantity drifts
    /// less than 3e-3 of itself (LAMMPS's own `fix npt` on such a 108-atom copper crystal at 2 fs:
    /// 0.47 eV of 368 in 12 ps, 1.3e-3; a cut Lennard-Jones liquid drifts by percents in either,
    /// its force jumping at the cutoff).
    @Test
    void aLongNptRunsMeanPressureIsTheTargetWithinItsError() throws Exception {
        java.nio.file.Path cu = java.nio.file.Path.of("/usr/share/lammps/potentials/Cu_u3.eam");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(cu) || dev.penstock.testing.Ci.required(),
                "LAMMPS's potential files (lammps-data) are not installed");
        double kT = dev.penstock.atoms.integrate.Units.KB_EV_PER_K * 500;
        double bar = 1 / dev.penstock.atoms.integrate.Units.BAR_PER_EV_PER_A3;
        List<AtomicSystem> copper = new ArrayList<>();
        SplittableRandom rnd = new SplittableRandom(31);
        for (int c = 0; c < 8; c++) {
            AtomicSystem s = dev.penstock.atoms.system.Lattices.fcc(c, 3, 3.615, rnd.nextDouble(-0.5, 0.5), true, new int[] {29, 29}, 0, 40 + c);
            double[] mean = new double[3];
            for (int i = 0; i < s.velocities().length; i++) {
                s.velocities()[i] = rnd.nextGaussian() * Math.sqrt(kT / s.masses()[i / 3]);
                mean[i % 3] += s.velocities()[i] / s.atoms();
            }
            for (int i = 0; i < s.velocities().length; i++) {
                s.velocities()[i] -= mean[i % 3];
            }
            copper.add(s);
        }
        int steps = 6000;
        int skip = 1000;
        double tau = dev.penstock.atoms.integrate.Units.fsToTau(1);
        SubStage.Barostat b = new SubStage.Barostat(2 * tau, true, kT, 100 * tau, 3, 1, 0, new Mtk.Settings(Mtk.ISO, 10_000 * bar,
                1 / (1000 * tau), 3), steps);
        Map<Long, double[]> sums = new java.util.concurrent.ConcurrentHashMap<>();
        double[] drift = new double[1];
        Hook<AtomicSystem> hook = new Hook<>() {
            @Override
            public void onStep(int stage, String name, long step, List<AtomicSystem> samples) {
                for (AtomicSystem s : samples) {
                    if (s.heldStep() > skip) {
                        double[] acc = sums.computeIfAbsent(s.id(), k -> new double[2]);
                        acc[0] += History.pressure(s);
                        acc[1]++;
                    }
                }
            }

            @Override
            public void onEvent(int stage, dev.penstock.stage.Event<AtomicSystem> e) {
                if (e.left()) {
                    drift[0] = Math.max(drift[0], Math.abs(Double.parseDouble(e.sample().info().get("conserved_energy_drift"))
                            / Double.parseDouble(e.sample().info().get("conserved_energy"))));
                }
            }
        };
        dev.penstock.atoms.potential.Eam eam = dev.penstock.atoms.potential.Eam.read(cu);
        try (CpuDevice cpu = new CpuDevice();
             Pipeline<AtomicSystem> p = Pipeline.of(DeviceStages.barostat(b, eam, cpu, d -> new CpuRelaxKernels(2), Double.POSITIVE_INFINITY))
                     .sizer(Systems.withListRadius(eam.cutoff())).batchCapacity(Capacity.of(8, 864, Long.MAX_VALUE)).samples(copper)
                     .results(MemorySink.unbounded("r")).hook(hook)) {
            p.run();
        }
        assertThat(sums).hasSize(8);
        double[] means = sums.values().stream().mapToDouble(a -> a[0] / a[1] / bar).toArray();
        double mean = Arrays.stream(means).average().orElseThrow();
        double var = Arrays.stream(means).map(x -> (x - mean) * (x - mean)).sum() / (means.length - 1);
        double error = Math.sqrt(var / means.length);
        System.out.printf(java.util.Locale.ROOT, "npt iso, 8 × 108 Cu atoms, %d steps: mean pressure %.1f ± %.1f bar (target 10000), drift %.2e%n",
                steps - skip, mean, error, drift[0]);
        assertThat(Math.abs(mean - 10_000)).as("mean pressure %s ± %s bar", mean, error).isLessThan(3 * error);
        assertThat(error).as("the pressure's error is a real one").isGreaterThan(0).isLessThan(1000);
        assertThat(drift[0]).isLessThan(3e-3);
    }
}
