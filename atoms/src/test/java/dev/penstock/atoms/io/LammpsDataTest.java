package dev.penstock.atoms.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.io.BadInputException;
import dev.penstock.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// LAMMPS data files written by LAMMPS itself (`/usr/bin/lmp`, `write_data`) read exactly —
/// triclinic cells, image flags unwrapped along the cell's vectors, elements from masses — and
/// every file this reader would read wrong refused in one line naming the file and line.
class LammpsDataTest {
    private static final Path LMP = Path.of("/usr/bin/lmp");

    @TempDir
    Path dir;

    private Path lammps(String name, String... input) throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        Files.writeString(dir.resolve("in." + name), String.join("\n", input) + "\n");
        Process p = new ProcessBuilder(LMP.toString(), "-in", "in." + name, "-log", "none", "-screen", "none").directory(dir.toFile())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("LAMMPS: %s", out).isZero();
        return dir.resolve(name + ".data");
    }

    private Path write(String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    @Test
    void aTriclinicAlloyIsReadAsLammpsUnwrapsIt() throws Exception {
        Path data = lammps("tri", "units metal", "atom_style atomic", "region box prism 0 6 0 5 0 4 1.5 0.7 -0.4", "create_box 2 box",
                "create_atoms 1 random 12 4321 box", "create_atoms 2 random 6 987 box", "mass 1 63.546", "mass 2 58.6934",
                "velocity all create 300 4928 loop geom", "displace_atoms all move 7.0 -3.0 9.5", "write_data tri.data",
                "write_dump all custom tri.dump id type xu yu zu vx vy vz modify format float %.17g sort id");
        AtomicSystem s = LammpsData.read(data, 3);
        assertThat(s.cell().vectors()).containsExactly(6, 0, 0, 1.5, 5, 0, 0.7, -0.4, 4);
        List<String> dump = Files.readAllLines(dir.resolve("tri.dump"));
        List<String> rows = dump.subList(dump.indexOf(dump.stream().filter(l -> l.startsWith("ITEM: ATOMS")).findFirst().orElseThrow()) + 1,
                dump.size());
        assertThat(rows).hasSize(18);
        for (String row : rows) {
            String[] c = row.trim().split("\\s+");
            int i = Integer.parseInt(c[0]) - 1;
            assertThat(s.numbers()[i]).as("atom %d's element, from its type's mass", i + 1).isEqualTo(c[1].equals("1") ? 29 : 28);
            for (int d = 0; d < 3; d++) {
                assertThat(s.positions()[3 * i + d]).as("atom %d unwrapped %s", i + 1, "xyz".charAt(d))
                        .isCloseTo(Double.parseDouble(c[2 + d]), within(1e-12));
                assertThat(s.velocities()[3 * i + d]).isEqualTo(Double.parseDouble(c[5 + d]));
            }
        }
    }

    @Test
    void chargeAndFullStylesAreReadWithTheirChargesAndMoleculesAndAStripedStyleOnlyWhereUnambiguous() throws Exception {
        Path data = lammps("charged", "units metal", "atom_style charge", "region box block 0 5 0 5 0 5", "create_box 1 box",
                "create_atoms 1 random 4 11 box", "mass 1 22.98976928", "set atom * charge 1.0", "set atom 2 charge -0.5",
                "velocity all create 300 7", "write_data charged.data");
        AtomicSystem charged = LammpsData.read(data, 1);
        assertThat(charged.atoms()).isEqualTo(4);
        assertThat(charged.numbers()).containsOnly(11);
        assertThat(charged.arrays().get("initial_charges").real(1)).isEqualTo(-0.5);
        assertThat(charged.arrays().get("initial_charges").real(0)).isEqualTo(1.0);
        assertThat(charged.velocities()).isNotEqualTo(new double[12]);
        String noComment = Files.readString(data).replace("Atoms # charge", "Atoms");
        Path stripped = write("stripped.data", noComment);
        assertThatThrownBy(() -> LammpsData.read(stripped, 1)).isInstanceOf(BadInputException.class)
                .hasMessageMatching(".*stripped\\.data:\\d+: 9 columns fit atom style charge \\(id type q x y z\\) and molecular.*'Atoms # charge'.*");
        Path full = lammps("full", "units metal", "atom_style full", "region box block 0 5 0 5 0 5", "create_box 2 box",
                "create_atoms 1 random 3 11 box", "create_atoms 2 random 2 12 box", "mass 1 22.98976928", "mass 2 35.45", "set type 1 charge 1.0",
                "set type 2 charge -1.0", "set type 2 mol 7", "write_data full.data");
        AtomicSystem f = LammpsData.read(full, 1);
        assertThat(f.numbers()).containsExactly(11, 11, 11, 17, 17);
        assertThat(f.arrays().get("initial_charges").real(4)).isEqualTo(-1.0);
        assertThat(f.arrays().get("mol-id").integer(4)).isEqualTo(7);
        assertThat(f.arrays().get("mol-id").integer(0)).isEqualTo(0);
        Path other = write("other.data", Files.readString(data).replace("Atoms # charge", "Atoms # dipole"));
        assertThatThrownBy(() -> LammpsData.read(other, 1)).isInstanceOf(BadInputException.class)
                .hasMessageMatching(".*other\\.data:\\d+: 'Atoms # dipole': atom style dipole is not read \\(atomic, charge and full are\\)");
    }

    private static final String HEADER = "title\n\n2 atoms\n2 atom types\n\n0 5 xlo xhi\n0 5 ylo yhi\n0 5 zlo zhi\n\n";

    @Test
    void typesBecomeElementsByTheirLabelTheirMassOrTheCallerAndNeverSilently() throws Exception {
        Path labelled = write("labelled.data", HEADER + "Masses\n\n1 39.948 # Ar\n2 12.5 # C\n\nAtoms # atomic\n\n1 1 0 0 0\n2 2 1 1 1\n");
        assertThat(LammpsData.read(labelled, 1).numbers()).containsExactly(18, 6);
        Path byMass = write("mass.data", HEADER + "Masses\n\n1 26.982\n2 55.845\n\nAtoms\n\n1 1 0 0 0\n2 2 1 1 1\n");
        assertThat(LammpsData.read(byMass, 1).numbers()).containsExactly(13, 26);
        Path lj = write("lj.data", HEADER + "Masses\n\n1 1.0\n2 2.0\n\nAtoms\n\n1 1 0 0 0\n2 2 1 1 1\n");
        assertThatThrownBy(() -> LammpsData.read(lj, 1)).isInstanceOf(BadInputException.class)
                .hasMessageContaining("lj.data:12: type 1 has mass 1.0, no element's standard mass");
        assertThat(LammpsData.read(lj, 1, 18, 36).numbers()).as("given by the caller").containsExactly(18, 36);
    }

    @Test
    void filesThatWouldBeReadWrongAreRefusedNamingTheLine() throws Exception {
        String masses = "Masses\n\n1 39.948\n2 39.948\n\n";
        assertThatThrownBy(() -> LammpsData.read(write("missing.data", HEADER + masses + "Atoms\n\n1 1 0 0 0\n"), 1))
                .hasMessageContaining("missing.data: the Atoms section lists 1 of the 2 atoms (atom id 2 is missing)");
        assertThatThrownBy(() -> LammpsData.read(write("twice.data", HEADER + masses + "Atoms\n\n1 1 0 0 0\n1 2 1 1 1\n"), 1))
                .hasMessageContaining("twice.data:18: atom id 1 appears twice");
        assertThatThrownBy(() -> LammpsData.read(write("type.data", HEADER + masses + "Atoms\n\n1 1 0 0 0\n2 3 1 1 1\n"), 1))
                .hasMessageContaining("type.data:18: type '3' is outside 1..2");
        assertThatThrownBy(() -> LammpsData.read(write("bonds.data", HEADER.replace("2 atom types", "2 atom types\n1 bonds") + masses), 1))
                .hasMessageContaining("bonds.data:5: '1 bonds': Penstock has no bonded terms, so the bonds would be dropped");
        assertThatThrownBy(() -> LammpsData.read(write("full.data", HEADER + masses + "Atoms # full\n\n1 1 1 0 0 0\n"), 1))
                .hasMessageContaining("full.data:17: expected 'id mol type q x y z [ix iy iz]' (atom style full), found 6 columns");
        assertThatThrownBy(() -> LammpsData.read(write("vel.data", HEADER + masses + "Atoms\n\n1 1 0 0 0\n2 1 1 1 1\n\nVelocities\n\n1 0 0\n"), 1))
                .hasMessageContaining("vel.data:22: expected 'id vx vy vz'");
    }
}
