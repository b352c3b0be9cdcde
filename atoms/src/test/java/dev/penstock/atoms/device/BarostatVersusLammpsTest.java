package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.integrate.Mtk;
import dev.penstock.atoms.io.LammpsData;
import dev.penstock.atoms.io.LammpsLog;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.History;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.CpuDevice;
import dev.penstock.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `npt` and `nph` (`SubStage.Barostat`, `Mtk`) against LAMMPS's `fix npt` / `fix nph` (Debian's
/// `/usr/bin/lmp`, run here) from LAMMPS's own start (its `write_data` file): the potential and
/// kinetic energy, the pressure, the volume and the conserved quantity (`etotal` plus the fix's
/// scalar) at every step 0…200 within 1e-9 relative of LAMMPS's thermo (`%.17g`) — a
/// Lennard-Jones liquid in LJ units (`iso`, `nph iso`, `tri` on a sheared cell) and EAM copper in
/// metal units held in LAMMPS's constants (`aniso`, `tri` on a sheared cell).
class BarostatVersusLammpsTest {
    private static final Path CU = LammpsSteps.CU;
    /// LAMMPS's metal units: mvv2e (eV per amu·Å²/ps²), boltz (eV/K), nktv2p (bar per eV/Å³)
    private static final double MVV2E = 1.0364269e-4;
    private static final double BOLTZ = 8.617343e-5;
    private static final double NKTV2P = 1.6021765e6;
    private static final int STEPS = 200;

    @TempDir
    Path dir;

    /// One step's numbers: potential and kinetic energy, pressure (eV/Å³), volume, conserved quantity.
    private record Row(double pe, double ke, double pressure, double volume, double conserved) {
    }

    private void lammps(String input) throws Exception {
        LammpsSteps.lammps(dir, input);
    }

    /// `s` through one stage of `b` under `model` on the CPU device: each step's numbers.
    static TreeMap<Long, Row> penstock(AtomicSystem s, Model model, SubStage.Barostat b) {
        try (CpuDevice cpu = new CpuDevice()) {
            return LammpsSteps.each(s, model, cpu, DeviceStages.barostat(b, model, cpu, d -> new CpuRelaxKernels(1), Double.POSITIVE_INFINITY),
                    x -> new Row(x.energy(), 0.5 * Mtk.mv2(x.velocities(), x.masses(), x.atoms()), History.pressure(x), x.cell().volume(),
                            Double.parseDouble(x.info().get("conserved_energy"))));
        }
    }

    /// Compares every step with LAMMPS's log (pressures in its units: eV/Å³ × `nktv2p`); returns the
    /// largest relative difference.
    private static double sameAsLammps(TreeMap<Long, Row> mine, LammpsLog log, double nktv2p, String what, double tolerance) {
        double[] pe = log.column("PotEng");
        double[] ke = log.column("KinEng");
        double[] press = log.column("Press");
        double[] vol = log.column("Volume");
        double[] total = log.column("TotEng");
        double[] fix = log.column("f_1");
        assertThat(pe).hasSize(STEPS + 1);
        assertThat(mine.keySet()).as("%s: every step", what).hasSize(STEPS + 1);
        double worst = 0;
        String[] names = {"potential energy", "kinetic energy", "pressure", "volume", "conserved quantity"};
        for (int step = 0; step <= STEPS; step++) {
            Row r = mine.get((long) step);
            double[][] pairs = {{r.pe(), pe[step]}, {r.ke(), ke[step]}, {r.pressure() * nktv2p, press[step]}, {r.volume(), vol[step]},
                {r.conserved(), total[step] + fix[step]}};
            for (int q = 0; q < pairs.length; q++) {
                double scale = q == 2 ? Math.max(Math.abs(pairs[q][1]), Math.abs(press[0])) : Math.abs(pairs[q][1]); // a pressure crossing 0
                double rel = Math.abs(pairs[q][0] - pairs[q][1]) / scale;
                worst = Math.max(worst, rel);
                assertThat(rel).as("%s, step %d: %s %s against LAMMPS's %s", what, step, names[q], pairs[q][0], pairs[q][1])
                        .isLessThan(tolerance);
            }
        }
        assertThat(Math.abs(vol[STEPS] - vol[0]) / vol[0]).as("%s: the barostat moved the volume", what).isGreaterThan(1e-4);
        System.out.printf(Locale.ROOT, "%s: %d steps, largest relative difference from LAMMPS %.2e (volume %.6g → %.6g)%n", what, STEPS,
                worst, vol[0], vol[STEPS]);
        return worst;
    }

    private static final String THERMO = "temp pe ke press vol etotal f_1";

    /// A LJ run of `fix` from LAMMPS's start, `shear` commands before it; Penstock's `b` from the
    /// same start.
    private void lj(String shear, String fix, SubStage.Barostat b, String what) throws Exception {
        lammps(LammpsSteps.ljStart(shear) + LammpsSteps.run(fix, THERMO, 0.005, STEPS));
        AtomicSystem s = LammpsData.read(dir.resolve("start.data"), 1, 0); // LJ units: mass 1, no element
        assertThat(s.atoms()).isEqualTo(500);
        sameAsLammps(penstock(s, new LennardJones(1, 1, 2.5, false), b), LammpsLog.read(dir.resolve("log.lammps")), 1, what, 1e-9);
    }

    private static SubStage.Barostat ljNpt(int couple) {
        return new SubStage.Barostat(0.005, true, 1.0, 0.5, 3, 1, 0, new Mtk.Settings(couple, 1.0, 1 / 0.5, 3), STEPS);
    }

    @Test
    void aLennardJonesLiquidUnderNptIsoTakesLammpsSteps() throws Exception {
        lj("", "fix             1 all npt temp 1.0 1.0 0.5 iso 1.0 1.0 0.5", ljNpt(Mtk.ISO), "LJ npt iso");
    }

    @Test
    void aLennardJonesLiquidUnderNphIsoTakesLammpsSteps() throws Exception {
        lj("", "fix             1 all nph iso 1.0 1.0 0.5",
                new SubStage.Barostat(0.005, false, 0, 1, 1, 1, 0, new Mtk.Settings(Mtk.ISO, 1.0, 1 / 0.5, 3), STEPS), "LJ nph iso");
    }

    @Test
    void aLennardJonesLiquidUnderNptAnisoTakesLammpsSteps() throws Exception {
        lj("", "fix             1 all npt temp 1.0 1.0 0.5 aniso 1.0 1.0 0.5", ljNpt(Mtk.ANISO), "LJ npt aniso");
    }

    @Test
    void aShearedLennardJonesCellUnderNptTriTakesLammpsSteps() throws Exception {
        lj("""
                change_box      all triclinic
                change_box      all xy final 0.6 xz final 0.4 yz final -0.3 remap units box
                """, "fix             1 all npt temp 1.0 1.0 0.5 tri 1.0 1.0 0.5", ljNpt(Mtk.TRI), "LJ npt tri");
    }

    /// An EAM copper run of `fix` (metal units) from LAMMPS's start, in LAMMPS's constants.
    private void copper(String shear, String fix, Mtk.Settings baro, String what) throws Exception {
        copper(shear, fix, baro, true, what);
    }

    private void copper(String shear, String fix, Mtk.Settings baro, boolean thermostat, String what) throws Exception {
        assumeTrue(Files.isReadable(CU) || Ci.required(), "LAMMPS's potential files (lammps-data) are not installed");
        lammps(LammpsSteps.copperStart(shear) + LammpsSteps.run(fix, THERMO, 0.002, STEPS));
        AtomicSystem s = LammpsData.read(dir.resolve("start.data"), 1, 29);
        double tau = Math.sqrt(MVV2E); // ps per Penstock time unit, in LAMMPS's constants
        for (int i = 0; i < s.velocities().length; i++) {
            s.velocities()[i] *= tau; // Å/ps → Å per time unit
        }
        SubStage.Barostat b = new SubStage.Barostat(0.002 / tau, thermostat, BOLTZ * 500, 0.1 / tau, 3, 1, 0, baro, STEPS);
        sameAsLammps(penstock(s, Eam.read(CU), b), LammpsLog.read(dir.resolve("log.lammps")), NKTV2P, what, 1e-9);
    }

    @Test
    void eamCopperUnderNptAnisoTakesLammpsSteps() throws Exception {
        copper("", "fix             1 all npt temp 500 500 0.1 aniso 5000 5000 0.2",
                new Mtk.Settings(Mtk.ANISO, 5000 / NKTV2P, Math.sqrt(MVV2E) / 0.2, 3), "EAM npt aniso");
    }

    @Test
    void eamCopperUnderNphIsoTakesLammpsSteps() throws Exception {
        copper("", "fix             1 all nph iso 5000 5000 0.2", new Mtk.Settings(Mtk.ISO, 5000 / NKTV2P, Math.sqrt(MVV2E) / 0.2, 3),
                false, "EAM nph iso");
    }

    @Test
    void aShearedCopperCellUnderNptTriTakesLammpsSteps() throws Exception {
        copper("""
                change_box      all triclinic
                change_box      all xy final 1.2 xz final -0.8 yz final 0.5 remap units box
                """, "fix             1 all npt temp 500 500 0.1 tri 0 0 0.2",
                new Mtk.Settings(Mtk.TRI, 0, Math.sqrt(MVV2E) / 0.2, 3), "EAM npt tri");
    }
}
