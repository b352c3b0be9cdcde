package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The thermostats and barostats as `simulate` runs them: `nvt` (a Nosé–Hoover chain) writes each
/// system's temperature and conserved quantity with its drift, on the local runner and, the same
/// bits, on Flink through checkpoints; `simulate --list` documents it; a bad argument is one line
/// naming it.
class SimulateEnsembleTest {
    private static final String ARGON = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";
    private static final String PIPELINE = "fire(fmax=0.01) | nvt(T=40, tdamp=250, dt=5, steps=400)";

    @TempDir
    Path dir;

    @Test
    void nvtWritesEachSystemsTemperatureAndConservedQuantityLocallyAndTheSameBitsOnFlink() throws Exception {
        Path in = Path.of("../examples/argon-clusters.xyz");
        Path local = dir.resolve("local.xyz");
        Path flink = dir.resolve("flink.xyz");
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", PIPELINE, "--potential", ARGON, "--max-atoms", "600", "--out",
                local.toString())).contains("24 of 24 systems finished");
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", PIPELINE, "--potential", ARGON, "--max-atoms", "600", "--out",
                flink.toString(), "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "100"))
                .contains("24 of 24 systems finished on Flink");
        Map<Long, AtomicSystem> a = SimulateDeviceTest.read(local);
        Map<Long, AtomicSystem> b = SimulateDeviceTest.read(flink);
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(24);
        double hottest = 0;
        for (long id : a.keySet()) {
            AtomicSystem s = a.get(id);
            assertThat(b.get(id).positions()).as("system %d on Flink, bit for bit", id).isEqualTo(s.positions());
            assertThat(b.get(id).info()).as("system %d on Flink", id).isEqualTo(s.info());
            assertThat(s.info().get("stages")).asString().contains("nvt:400");
            double t = Double.parseDouble(s.info().get("temperature"));
            double conserved = Double.parseDouble(s.info().get("conserved_energy"));
            double drift = Double.parseDouble(s.info().get("conserved_energy_drift"));
            double ke = 0;
            for (int i = 0; i < s.atoms(); i++) {
                double[] v = s.velocities();
                ke += 0.5 * s.masses()[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
            }
            assertThat(t).as("system %d: the temperature from its velocities, 3N degrees of freedom (ASE's)", id)
                    .isCloseTo(2 * ke / (3 * s.atoms() * 8.617333262e-5), org.assertj.core.data.Percentage.withPercentage(1e-9));
            assertThat(Math.abs(drift)).as("system %d: the conserved quantity's drift against its energy %s", id, conserved)
                    .isLessThan(1e-3 * Math.abs(conserved));
            hottest = Math.max(hottest, t);
        }
        assertThat(hottest).as("the thermostat heated the relaxed (cold) clusters").isGreaterThan(10);
    }

    @Test
    void theMethodListDocumentsNvtAndABadArgumentIsOneLineNamingIt() {
        assertThat(MainTest.run(0, "simulate", "--list")).contains("nvt(T=K, tdamp=FS, dt=FS, steps=N, chain=3, tloop=1)")
                .contains("conserved_energy");
        String out = MainTest.run(2, "simulate", "../examples/argon-clusters.xyz", "--pipeline", "nvt(T=40, tdamp=250, dt=5, steps=10, chain=9)",
                "--potential", ARGON, "--out", dir.resolve("never.xyz").toString());
        assertThat(out).contains("'nvt': 'chain' must be 1 … 5, got 9");
        assertThat(Files.exists(dir.resolve("never.xyz"))).isFalse();
        assertThat(MainTest.run(2, "simulate", "../examples/argon-clusters.xyz", "--pipeline", "nvt(T=40, dt=5, steps=10)", "--potential", ARGON,
                "--out", dir.resolve("never.xyz").toString())).contains("'nvt' needs 'tdamp'");
    }
}
