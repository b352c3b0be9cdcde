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
/// bits, on Flink through checkpoints; `npt` then `nvt` carries each crystal's equilibrated cell
/// from the one stage to the next, locally and on Flink alike, writing its pressure and volume;
/// `fire_cell` and `fire2_cell` relax the cells;
/// `simulate --list` documents them; a bad argument is one line naming it.
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
                local.toString())).contains("24 of 24 systems finished").containsPattern("outcomes: 24 converged; temperature [0-9.]+ K mean "
                + "\\([0-9.]+–[0-9.]+\\); largest conserved-energy drift [0-9.e+-]+ eV \\([0-9.e+-]+ of it, system \\d+\\)");
        String json = MainTest.run(0, "simulate", in.toString(), "--pipeline", PIPELINE, "--potential", ARGON, "--max-atoms", "600", "--out",
                dir.resolve("json.xyz").toString(), "--json");
        assertThat(json).containsPattern("\"temperature_k\": \\{\"systems\": 24, \"mean\": [0-9.E-]+, \"min\": [0-9.E-]+, \"max\": [0-9.E-]+}")
                .containsPattern("\"conserved_energy_drift\": \\{\"largest_ev\": [0-9.E-]+, \"relative\": [0-9.E-]+, \"system\": \\d+}");
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

    /// NPT equilibration then NVT production (README's pipeline) over the eight silicon crystals
    /// of `examples/silicon.xyz` (Stillinger–Weber, 64 atoms each) at 10 kbar: each leaves `npt`
    /// with a new cell, which `nvt` keeps bit for bit; pressure (eV/Å³) and volume in its info, the
    /// summary's pressure in bar; the same bits on Flink, with checkpoints mid-run; a free system
    /// refused before the run, naming it.
    @Test
    void nptThenNvtCarriesEachCrystalsCellDownstreamLocallyAndTheSameBitsOnFlink() throws Exception {
        java.nio.file.Path sw = java.nio.file.Path.of("/usr/share/lammps/potentials/Si.sw");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(sw) || dev.penstock.testing.Ci.required(),
                "LAMMPS's potential files (lammps-data) are not installed");
        String pipeline = "npt(T=600, P=10000, tdamp=100, pdamp=500, dt=1, steps=300) | nvt(T=600, tdamp=100, dt=1, steps=100)";
        String potential = "sw(file=" + sw + ")";
        Path in = Path.of("../examples/silicon.xyz");
        Path local = dir.resolve("npt-local.xyz");
        Path flink = dir.resolve("npt-flink.xyz");
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", potential, "--out", local.toString()))
                .contains("8 of 8 systems finished").containsPattern("; pressure [0-9.e+-]+ bar mean \\(");
        String json = MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", potential, "--out",
                dir.resolve("npt-json.xyz").toString(), "--json");
        assertThat(json).containsPattern("\"pressure_bar\": \\{\"systems\": 8, \"mean\": [0-9.E-]+")
                .containsPattern("\"volume_a3\": \\{\"systems\": 8, \"mean\": [0-9.E-]+");
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", potential, "--out", flink.toString(),
                "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "100")).contains("8 of 8 systems finished on Flink");
        Path nptOnly = dir.resolve("npt-only.xyz");
        MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline.substring(0, pipeline.indexOf(" |")), "--potential", potential,
                "--out", nptOnly.toString());
        Map<Long, AtomicSystem> start = SimulateDeviceTest.read(in);
        Map<Long, AtomicSystem> equilibrated = SimulateDeviceTest.read(nptOnly);
        Map<Long, AtomicSystem> a = SimulateDeviceTest.read(local);
        Map<Long, AtomicSystem> b = SimulateDeviceTest.read(flink);
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(8);
        for (long id : a.keySet()) {
            AtomicSystem s = a.get(id);
            assertThat(b.get(id).positions()).as("system %d on Flink, bit for bit", id).isEqualTo(s.positions());
            assertThat(b.get(id).cell()).as("system %d's cell on Flink", id).isEqualTo(s.cell());
            assertThat(b.get(id).info()).as("system %d on Flink", id).isEqualTo(s.info());
            assertThat(s.info().get("stages")).isEqualTo("npt:300,nvt:100");
            double v0 = start.get(id).cell().volume();
            assertThat(Math.abs(s.cell().volume() / v0 - 1)).as("system %d: the barostat changed the cell", id).isGreaterThan(1e-3);
            assertThat(s.cell()).as("system %d: nvt keeps the cell npt left", id).isEqualTo(equilibrated.get(id).cell());
            assertThat(Double.parseDouble(s.info().get("volume"))).isEqualTo(s.cell().volume());
            double pressure = Double.parseDouble(s.info().get("pressure"));
            assertThat(pressure).as("system %d: a pressure written", id).isNotZero();
            double[] tensor = java.util.Arrays.stream(s.info().get("pressure_tensor").split(" ")).mapToDouble(Double::parseDouble).toArray();
            assertThat(tensor).as("system %d: the pressure tensor, row-major", id).hasSize(9);
            assertThat((tensor[0] + tensor[4] + tensor[8]) / 3).as("system %d: its trace over 3 is the pressure", id)
                    .isCloseTo(pressure, org.assertj.core.data.Offset.offset(1e-12 * Math.abs(tensor[0]) + 1e-15));
            assertThat(tensor[1]).as("system %d: symmetric", id).isCloseTo(tensor[3], org.assertj.core.data.Offset.offset(1e-9 * Math.abs(tensor[0])));
        }
        Path free = dir.resolve("free.xyz");
        Files.writeString(free, "2\nProperties=species:S:1:pos:R:3\nSi 0 0 0\nSi 2.35 0 0\n");
        assertThat(MainTest.run(2, "simulate", free.toString(), "--pipeline", pipeline, "--potential", potential, "--out",
                dir.resolve("never.xyz").toString())).contains("is not periodic along every axis").contains("'npt'");
    }

    /// Variable-cell relaxation through `simulate`: `fire_cell` and `fire2_cell` at 10 kbar over the
    /// silicon crystals, each to convergence, its cell its own; a FIRE 2.0 relaxation then NPT
    /// dynamics (`fire2_cell | npt`) the same bits on Flink; a bad mask is one line naming it.
    @Test
    void fireCellRelaxesEachCrystalsCellLocallyAndTheSameBitsOnFlink() throws Exception {
        java.nio.file.Path sw = java.nio.file.Path.of("/usr/share/lammps/potentials/Si.sw");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(sw) || dev.penstock.testing.Ci.required(),
                "LAMMPS's potential files (lammps-data) are not installed");
        String potential = "sw(file=" + sw + ")";
        Path in = Path.of("../examples/silicon.xyz");
        Map<Long, AtomicSystem> start = SimulateDeviceTest.read(in);
        Path relaxed = dir.resolve("relaxed.xyz");
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", "fire_cell(fmax=0.01, P=10000)", "--potential", potential, "--out",
                relaxed.toString())).contains("8 of 8 systems finished").contains("outcomes: 8 converged");
        Path unloaded = dir.resolve("unloaded.xyz");
        MainTest.run(0, "simulate", in.toString(), "--pipeline", "fire_cell(fmax=0.01)", "--potential", potential, "--out", unloaded.toString());
        Map<Long, AtomicSystem> atZero = SimulateDeviceTest.read(unloaded);
        for (AtomicSystem s : SimulateDeviceTest.read(relaxed).values()) {
            assertThat(s.info().get("stages")).asString().startsWith("fire_cell:");
            assertThat(s.cell()).as("system %d: its cell relaxed", s.id()).isNotEqualTo(start.get(s.id()).cell());
            assertThat(s.cell().volume()).as("system %d: smaller at 10 kbar than at 0", s.id()).isLessThan(0.995 * atZero.get(s.id()).cell().volume());
        }
        String pipeline = "fire2_cell(fmax=0.02, P=10000) | npt(T=300, P=10000, tdamp=100, pdamp=500, dt=1, steps=100)";
        Path local = dir.resolve("cell-local.xyz");
        Path flink = dir.resolve("cell-flink.xyz");
        MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", potential, "--out", local.toString());
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", potential, "--out", flink.toString(),
                "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "100")).contains("8 of 8 systems finished on Flink");
        Map<Long, AtomicSystem> a = SimulateDeviceTest.read(local);
        Map<Long, AtomicSystem> b = SimulateDeviceTest.read(flink);
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(8);
        for (long id : a.keySet()) {
            assertThat(b.get(id).positions()).as("system %d on Flink, bit for bit", id).isEqualTo(a.get(id).positions());
            assertThat(b.get(id).cell()).as("system %d's cell on Flink", id).isEqualTo(a.get(id).cell());
            assertThat(a.get(id).info().get("stages")).asString().startsWith("fire2_cell:").endsWith(",npt:100");
        }
        assertThat(MainTest.run(2, "simulate", in.toString(), "--pipeline", "fire_cell(fmax=0.01, mask=11100)", "--potential", potential,
                "--out", dir.resolve("never.xyz").toString())).contains("'fire_cell': 'mask' must be six 0/1 digits");
    }

    /// A LAMMPS data file as `simulate`'s input: `write_data`'s copper with velocities (metal units)
    /// read as one system, its velocities in Penstock's units (its temperature LAMMPS's, as the two
    /// k_B say), its types' elements from the file or `--types`; `--types` with extended
    /// XYZ and a file with bonds are one line each.
    @Test
    void aLammpsDataFileIsOneSystemWithItsVelocitiesAndItsTypesElements() throws Exception {
        Path lmp = Path.of("/usr/bin/lmp");
        Path cu = Path.of("/usr/share/lammps/potentials/Cu_u3.eam");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(lmp) && Files.isReadable(cu) || dev.penstock.testing.Ci.required(),
                "LAMMPS (lammps, lammps-data) is not installed");
        Files.writeString(dir.resolve("in.start"), String.join("\n", "units metal", "atom_style atomic", "lattice fcc 3.615",
                "region box block 0 3 0 3 0 3", "create_box 1 box", "create_atoms 1 box", "pair_style eam", "pair_coeff 1 1 " + cu,
                "velocity all create 300 4928459 loop geom", "thermo_style custom step temp", "thermo_modify format float %.17g", "run 0",
                "write_data cu.data", ""));
        Process p = new ProcessBuilder(lmp.toString(), "-in", "in.start", "-log", "log.lammps", "-screen", "none").directory(dir.toFile())
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isZero();
        Path out = dir.resolve("cu.xyz");
        String eam = "eam(file=" + cu + ")";
        assertThat(MainTest.run(0, "simulate", dir.resolve("cu.data").toString(), "--pipeline", "nve(dt=1, steps=0)", "--potential", eam, "--out",
                out.toString())).contains("1 of 1 systems finished");
        AtomicSystem s = SimulateDeviceTest.read(out).get(0L);
        assertThat(s.atoms()).isEqualTo(108);
        assertThat(s.numbers()).containsOnly(29);
        double t3n = Double.parseDouble(s.info().get("temperature")); // 3N degrees of freedom; LAMMPS's 300 K has 3N − 3
        // LAMMPS's metal k_B (8.617343e-5 eV/K) is 1.1e-6 above ASE's (CODATA 2018's 8.617333262e-5)
        assertThat(t3n * 3 * 108 / (3 * 108 - 3)).as("LAMMPS's 300 K, in ASE's constants").isCloseTo(300 * 8.617343e-5 / 8.617333262e-5,
                org.assertj.core.data.Offset.offset(300 * 1e-7));
        Path nvt = dir.resolve("nvt.data");
        assertThat(MainTest.run(0, "simulate", dir.resolve("cu.data").toString(), "--pipeline", "nvt(T=300, tdamp=100, dt=2, steps=20)",
                "--potential", eam, "--out", nvt.toString())).contains("1 of 1 systems finished");
        // the output as a LAMMPS data file: read back (and by LAMMPS) as the same system
        AtomicSystem back = dev.penstock.atoms.io.LammpsData.read(nvt, 0);
        Path nvtXyz = dir.resolve("nvt.xyz");
        MainTest.run(0, "simulate", dir.resolve("cu.data").toString(), "--pipeline", "nvt(T=300, tdamp=100, dt=2, steps=20)", "--potential", eam,
                "--out", nvtXyz.toString());
        AtomicSystem same = SimulateDeviceTest.read(nvtXyz).get(0L);
        assertThat(back.positions()).as("positions, bit for bit").isEqualTo(same.positions());
        assertThat(back.numbers()).containsOnly(29);
        for (int i = 0; i < back.velocities().length; i++) {
            double v = back.velocities()[i] * dev.penstock.atoms.integrate.Units.TAU_FS / 1000; // Å/ps → Å per τ
            assertThat(v).as("velocity %d", i).isCloseTo(same.velocities()[i], org.assertj.core.data.Offset.offset(1e-15));
        }
        Files.writeString(dir.resolve("in.back"), String.join("\n", "units metal", "atom_style atomic", "read_data nvt.data", "pair_style eam",
                "pair_coeff 1 1 " + cu, "thermo_style custom step pe", "thermo_modify format float %.17g", "run 0", ""));
        Process q = new ProcessBuilder(lmp.toString(), "-in", "in.back", "-log", "log.back", "-screen", "none").directory(dir.toFile())
                .redirectErrorStream(true).start();
        q.getInputStream().readAllBytes();
        assertThat(q.waitFor()).as("LAMMPS reads the data file").isZero();
        double pe = dev.penstock.atoms.io.LammpsLog.read(dir.resolve("log.back")).column("PotEng")[0];
        assertThat(Math.abs(pe - same.energy()) / Math.abs(pe)).as("LAMMPS's energy of the written system").isLessThan(1e-12);
        assertThat(MainTest.run(2, "simulate", "../examples/argon-clusters.xyz", "--pipeline", "nve(dt=1, steps=5)", "--potential", ARGON, "--out",
                dir.resolve("never.data").toString())).contains("option '--out'").contains("a LAMMPS data file holds one system").contains("has 24");
        String refused = MainTest.run(2, "simulate", dir.resolve("cu.data").toString(), "--types", "Ni", "--pipeline", "nve(dt=1, steps=5)",
                "--potential", eam, "--out", dir.resolve("never.xyz").toString());
        assertThat(refused).contains("atom 0 is Ni, which Cu_u3.eam does not describe");
        assertThat(MainTest.run(2, "simulate", "../examples/argon-clusters.xyz", "--types", "Ar", "--pipeline", "nve(dt=1, steps=5)",
                "--potential", ARGON, "--out", dir.resolve("never.xyz").toString())).contains("option '--types'");
        Path bonded = dir.resolve("bonded.data");
        Files.writeString(bonded, Files.readString(dir.resolve("cu.data")).replace("1 atom types", "1 atom types\n3 bonds"));
        assertThat(MainTest.run(3, "simulate", bonded.toString(), "--pipeline", "nve(dt=1, steps=5)", "--potential", eam, "--out",
                dir.resolve("never.xyz").toString())).contains("bonded.data:").contains("3 bonds").contains("no bonded terms");
        assertThat(Files.exists(dir.resolve("never.xyz"))).isFalse();
    }

    @Test
    void theMethodListDocumentsNvtAndABadArgumentIsOneLineNamingIt() {
        assertThat(MainTest.run(0, "simulate", "--list")).contains("nvt(T=K, tdamp=FS, dt=FS, steps=N, chain=3, tloop=1)")
                .contains("npt(T=K, P=BAR, tdamp=FS, pdamp=FS, dt=FS, steps=N, couple=iso, chain=3, pchain=3, tloop=1)")
                .contains("nph(P=BAR, pdamp=FS, dt=FS, steps=N, couple=iso, pchain=3, ptemp=K)")
                .contains("conserved_energy");
        String out = MainTest.run(2, "simulate", "../examples/argon-clusters.xyz", "--pipeline", "nvt(T=40, tdamp=250, dt=5, steps=10, chain=9)",
                "--potential", ARGON, "--out", dir.resolve("never.xyz").toString());
        assertThat(out).contains("'nvt': 'chain' must be 1 … 5, got 9");
        assertThat(MainTest.run(2, "simulate", "../examples/silicon.xyz", "--pipeline", "npt(T=40, P=1, tdamp=100, pdamp=500, dt=1, steps=10, "
                + "couple=xyz)", "--potential", ARGON, "--out", dir.resolve("never.xyz").toString()))
                .contains("'npt': 'couple' must be iso, aniso or tri, got 'xyz'");
        assertThat(Files.exists(dir.resolve("never.xyz"))).isFalse();
        assertThat(MainTest.run(2, "simulate", "../examples/argon-clusters.xyz", "--pipeline", "nvt(T=40, dt=5, steps=10)", "--potential", ARGON,
                "--out", dir.resolve("never.xyz").toString())).contains("'nvt' needs 'tdamp'");
    }
}
