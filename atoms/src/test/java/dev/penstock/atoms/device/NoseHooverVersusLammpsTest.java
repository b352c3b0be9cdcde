package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.io.LammpsData;
import dev.penstock.atoms.io.LammpsLog;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.CpuDevice;
import dev.penstock.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `nvt` (`SubStage.NoseHoover`) against LAMMPS's `fix nvt` (Debian's `/usr/bin/lmp`, run here):
/// from LAMMPS's own start (its `write_data` file), the potential and kinetic energy and the
/// conserved quantity (`etotal` plus the fix's scalar) at every step 0…200 within 1e-9 relative of
/// LAMMPS's thermo (`%.17g`) — a Lennard-Jones liquid in LJ units and EAM copper in metal units
/// held in LAMMPS's constants (its `mvv2e` and `boltz`); and the same run as `simulate`'s
/// `nvt(T=500, tdamp=50, dt=2, steps=200, chain=4)` takes it, in ASE's constants, within 1e-5 (ASE's
/// k_B, CODATA 2018, is 1.1e-6 below LAMMPS's metal one and its time unit ~1e-8 off: 1.1e-6).
class NoseHooverVersusLammpsTest {
    private static final Path CU = LammpsSteps.CU;
    /// LAMMPS's metal units: mvv2e (eV per amu·Å²/ps²) and boltz (eV/K)
    private static final double MVV2E = 1.0364269e-4;
    private static final double BOLTZ = 8.617343e-5;
    private static final int STEPS = 200;

    @TempDir
    Path dir;

    /// One step's numbers: potential and kinetic energy, conserved quantity.
    private record Row(double pe, double ke, double conserved) {
    }

    private void lammps(String input) throws Exception {
        LammpsSteps.lammps(dir, input);
    }

    /// `s` through one `nvt` stage of `nh` under `model` on the CPU device: each step's numbers.
    private static TreeMap<Long, Row> penstock(AtomicSystem s, Model model, SubStage.NoseHoover nh) {
        try (CpuDevice cpu = new CpuDevice()) {
            return LammpsSteps.each(s, model, cpu, DeviceStages.nvt(nh, model, cpu, d -> new CpuRelaxKernels(1), Double.POSITIVE_INFINITY),
                    x -> new Row(x.energy(), 0.5 * dev.penstock.atoms.integrate.Mtk.mv2(x.velocities(), x.masses(), x.atoms()),
                            Double.parseDouble(x.info().get("conserved_energy"))));
        }
    }

    private static void sameAsLammps(TreeMap<Long, Row> mine, LammpsLog log, String what) {
        sameAsLammps(mine, log, what, 1e-9);
    }

    private static double sameAsLammps(TreeMap<Long, Row> mine, LammpsLog log, String what, double tolerance) {
        double[] pe = log.column("PotEng");
        double[] ke = log.column("KinEng");
        double[] total = log.column("TotEng");
        double[] chain = log.column("f_1");
        assertThat(pe).hasSize(STEPS + 1);
        assertThat(mine.keySet()).as("%s: every step", what).hasSize(STEPS + 1);
        double worst = 0;
        for (int step = 0; step <= STEPS; step++) {
            Row r = mine.get((long) step);
            double conserved = total[step] + chain[step];
            double[][] pairs = {{r.pe(), pe[step]}, {r.ke(), ke[step]}, {r.conserved(), conserved}};
            String[] names = {"potential energy", "kinetic energy", "conserved quantity"};
            for (int q = 0; q < 3; q++) {
                double rel = Math.abs(pairs[q][0] - pairs[q][1]) / Math.abs(pairs[q][1]);
                worst = Math.max(worst, rel);
                assertThat(rel).as("%s, step %d: %s %s against LAMMPS's %s", what, step, names[q], pairs[q][0], pairs[q][1]).isLessThan(tolerance);
            }
        }
        assertThat(Math.abs(chain[STEPS])).as("%s: the thermostat did work (its share of the conserved quantity)", what).isGreaterThan(0);
        System.out.printf(Locale.ROOT, "%s: %d steps, largest relative difference from LAMMPS %.2e%n", what, STEPS, worst);
        return worst;
    }

    @Test
    void aLennardJonesLiquidInLjUnitsTakesLammpsStepsToRounding() throws Exception {
        lammps(LammpsSteps.ljStart("") + LammpsSteps.run("fix 1 all nvt temp 1.0 1.0 0.5", "temp pe ke etotal f_1", 0.005, STEPS));
        AtomicSystem s = LammpsData.read(dir.resolve("start.data"), 1, 0); // LJ units: mass 1, no element
        assertThat(s.atoms()).isEqualTo(500);
        // LJ units are Penstock's with ε = σ = m = 1 (k_B = 1: kT is T)
        SubStage.NoseHoover nh = new SubStage.NoseHoover(0.005, 1.0, 0.5, 3, 1, STEPS);
        sameAsLammps(penstock(s, new LennardJones(1, 1, 2.5, false), nh), LammpsLog.read(dir.resolve("log.lammps")), "LJ nvt");
    }

    @Test
    void eamCopperInMetalUnitsTakesLammpsStepsToRounding() throws Exception {
        assumeTrue(Files.isReadable(CU) || Ci.required(), "LAMMPS's potential files (lammps-data) are not installed");
        lammps(LammpsSteps.copperStart("") + LammpsSteps.run("fix 1 all nvt temp 500 500 0.05 tchain 4", "temp pe ke etotal f_1", 0.002,
                STEPS));
        AtomicSystem s = LammpsData.read(dir.resolve("start.data"), 1, 29);
        double tau = Math.sqrt(MVV2E); // ps per Penstock time unit, in LAMMPS's constants
        for (int i = 0; i < s.velocities().length; i++) {
            s.velocities()[i] *= tau; // Å/ps → Å per time unit
        }
        SubStage.NoseHoover nh = new SubStage.NoseHoover(0.002 / tau, BOLTZ * 500, 0.05 / tau, 4, 1, STEPS);
        sameAsLammps(penstock(s, Eam.read(CU), nh), LammpsLog.read(dir.resolve("log.lammps")), "EAM nvt");
        // what `simulate` runs: the same call in ASE's constants (CODATA k_B, ASE's femtosecond),
        // the velocities converted the same way: the target temperature 1.1e-6 off LAMMPS's (the two k_B)
        AtomicSystem ase = LammpsData.read(dir.resolve("start.data"), 1, 29);
        double psPerTau = dev.penstock.atoms.integrate.Units.TAU_FS / 1000;
        for (int i = 0; i < ase.velocities().length; i++) {
            ase.velocities()[i] *= psPerTau;
        }
        var call = dev.penstock.atoms.stage.PipelineSpec.noseHoover(dev.penstock.atoms.stage.PipelineSpec.parse(
                "nvt(T=500, tdamp=50, dt=2, steps=" + STEPS + ", chain=4)").getFirst().getFirst());
        SubStage.NoseHoover inAse = new SubStage.NoseHoover(call.dt(), call.kT(), call.tdamp(), call.chain(), call.tloop(), call.steps());
        double far = sameAsLammps(penstock(ase, Eam.read(CU), inAse), LammpsLog.read(dir.resolve("log.lammps")), "EAM nvt in ASE's units",
                1e-5);
        assertThat(far).as("ASE's constants are not LAMMPS's").isGreaterThan(1e-10);
    }
}
