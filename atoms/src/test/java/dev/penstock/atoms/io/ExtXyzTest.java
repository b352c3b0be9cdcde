package dev.penstock.atoms.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.testing.Python;
import java.io.BufferedReader;
import java.io.StringReader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Extended XYZ checked with ASE as Debian ships it (python3-ase 3.22), which `.ci/run` installs.
class ExtXyzTest {
    @TempDir
    Path dir;

    private static void requireAse() {
        assumeTrue(Python.required() || Python.has("ase"), "ASE (python3-ase) is not installed");
    }

    private static AtomicSystem argonPair() {
        AtomicSystem s = new AtomicSystem(17, new double[] {0.1, 0.2, 0.3, 3.9, 0.25, -0.125}, new double[] {39.948, 39.948},
                new int[] {18, 18}, new double[] {10, 11, 12}, new boolean[] {true, true, false});
        s.velocities()[0] = 0.01;
        s.velocities()[5] = -0.02;
        new LennardJones(0.0104, 3.4, 8.5, true).compute(s);
        return s;
    }

    @Test
    void framesWithoutAnIdNeverCollideWithFramesThatHaveOne() throws Exception {
        StringBuilder text = new StringBuilder();
        for (int k = 0; k < 14; k++) {
            String id = switch (k) {
                case 1 -> " id=12"; // the index of a later plain frame
                case 3 -> " id=0";  // the index of the first plain frame
                case 5 -> " id=40";
                default -> "";
            };
            text.append("1\nLattice=\"5 0 0 0 5 0 0 0 5\" Properties=species:S:1:pos:R:3 pbc=\"T T T\"").append(id)
                    .append("\nAr 0 0 ").append(k * 0.1).append('\n');
        }
        List<AtomicSystem> frames = ExtXyz.read(new BufferedReader(new StringReader(text.toString())), Path.of("mixed.extxyz"));
        List<Long> ids = frames.stream().map(AtomicSystem::id).toList();
        assertThat(ids).as("every id unique").doesNotHaveDuplicates().hasSize(14);
        assertThat(ids.get(1)).isEqualTo(12);
        assertThat(ids.get(3)).isZero();
        assertThat(ids.get(5)).isEqualTo(40);
        assertThat(ids.get(2)).as("a plain frame keeps its index where nothing claims it").isEqualTo(2);
        assertThat(ids.get(0)).as("claimed by frame 3's id=0: past the largest").isEqualTo(41);
        assertThat(ids.get(12)).as("claimed by frame 1's id=12").isEqualTo(42);
        for (int k = 0; k < 14; k++) {
            assertThat(frames.get(k).positions()[2]).as("frame %d kept its atoms", k).isEqualTo(k * 0.1);
        }
    }

    @Test
    void aseReadsWhatWasWritten() throws Exception {
        requireAse();
        Path f = dir.resolve("out.extxyz");
        try (Writer w = Files.newBufferedWriter(f)) {
            ExtXyz.write(w, List.of(argonPair(), AtomicSystem.free(3, new double[] {0, 0, 0, 1.1, 0, 0})));
        }
        Python.Result r = Python.run("""
                import sys
                import numpy as np
                from ase.io import read
                frames = read(sys.argv[1], index=':', format='extxyz')
                a = frames[0]
                assert len(frames) == 2, len(frames)
                assert a.get_chemical_symbols() == ['Ar', 'Ar'], a.get_chemical_symbols()
                assert np.allclose(a.positions, [[0.1, 0.2, 0.3], [3.9, 0.25, -0.125]], atol=0, rtol=0)
                assert np.allclose(a.cell.lengths(), [10, 11, 12]) and list(a.pbc) == [True, True, False], (a.cell, a.pbc)
                assert np.allclose(a.get_velocities()[0], [0.01, 0, 0]) and np.allclose(a.get_velocities()[1], [0, 0, -0.02])
                print('energy', a.get_potential_energy(), 'id', a.info['id'])
                print('OK')
                """, f.toString());
        assertThat(r.output()).contains("OK").contains("id 17");
        double e = argonPair().energy();
        assertThat(r.output()).contains("energy " + e);
    }

    @Test
    void filesWrittenByAseAreRead() throws Exception {
        requireAse();
        Path f = dir.resolve("ase.extxyz");
        Python.Result r = Python.run("""
                import sys
                from ase import Atoms
                from ase.io import write
                a = Atoms('CuAu', positions=[[0, 0, 0], [1.5, 1.25, 0.5]], cell=[[4, 0, 0], [1, 5, 0], [0.5, 0.25, 6]], pbc=[True, False, True])
                a.set_velocities([[0.1, 0, 0], [0, 0.2, 0]])
                b = Atoms('H2O', positions=[[0, 0, 0], [0.76, 0.59, 0], [-0.76, 0.59, 0]])
                write(sys.argv[1], [a, b], format='extxyz')
                print('written')
                """, f.toString());
        assertThat(r.output()).contains("written");
        List<AtomicSystem> systems;
        try (BufferedReader in = Files.newBufferedReader(f)) {
            systems = ExtXyz.read(in, f);
        }
        assertThat(systems).hasSize(2);
        AtomicSystem a = systems.get(0);
        assertThat(a.numbers()).containsExactly(29, 79);
        assertThat(a.positions()).containsExactly(0, 0, 0, 1.5, 1.25, 0.5);
        assertThat(a.cell().vectors()).as("a triclinic cell").containsExactly(4, 0, 0, 1, 5, 0, 0.5, 0.25, 6);
        assertThat(a.periodic(0)).isTrue();
        assertThat(a.periodic(1)).isFalse();
        assertThat(a.velocities()[4]).isCloseTo(0.2, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(a.masses()[0]).isCloseTo(63.546, org.assertj.core.api.Assertions.within(1e-3));
        assertThat(systems.get(1).numbers()).containsExactly(1, 1, 8);
    }

    @Test
    void perAtomArraysOfTheInputAreCarriedToTheOutput() throws Exception {
        requireAse();
        Path in = dir.resolve("tagged.extxyz");
        Python.Result r = Python.run("""
                import sys
                import numpy as np
                from ase import Atoms
                from ase.io import write
                a = Atoms('Cu3', positions=[[0, 0, 0], [2.5, 0, 0], [0, 2.5, 0]], cell=[8, 8, 8], pbc=True)
                a.set_tags([3, 1, -2])
                a.set_initial_charges([0.125, -0.5, 1e-3])
                a.new_array('fixed', np.array([True, False, True]))
                a.new_array('label', np.array(['core', 'shell', 'core']))
                a.new_array('dipole', np.array([[0.5, 1.0, -1.5], [0, 0, 0], [2, 2, 2]]))
                write(sys.argv[1], [a], format='extxyz')
                print('written')
                """, in.toString());
        assertThat(r.output()).contains("written");
        List<AtomicSystem> systems;
        try (BufferedReader b = Files.newBufferedReader(in)) {
            systems = ExtXyz.read(b, in);
        }
        AtomicSystem s = systems.get(0);
        assertThat(s.arrays()).containsKeys("tags", "initial_charges", "fixed", "label", "dipole");
        assertThat(s.arrays().get("tags").kind()).isEqualTo(dev.penstock.atoms.system.AtomArray.Kind.INT);
        assertThat(s.arrays().get("dipole").width()).isEqualTo(3);
        assertThat(s.toString()).startsWith("AtomicSystem[id=0, 3 atoms").contains("periodic TTT").contains("arrays [tags, initial_charges");
        // through the codec (overflow tier, checkpoints, Flink) and back out to a file ASE reads
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        new dev.penstock.atoms.stage.SystemCodec().write(s, new java.io.DataOutputStream(bytes));
        AtomicSystem back = new dev.penstock.atoms.stage.SystemCodec().read(new java.io.DataInputStream(
                new java.io.ByteArrayInputStream(bytes.toByteArray())));
        assertThat(back.arrays()).isEqualTo(s.arrays());
        Path out = dir.resolve("out.extxyz");
        try (Writer w = Files.newBufferedWriter(out)) {
            ExtXyz.write(w, List.of(back));
        }
        r = Python.run("""
                import sys
                import numpy as np
                from ase.io import read
                a = read(sys.argv[1], format='extxyz')
                assert list(a.get_tags()) == [3, 1, -2], a.get_tags()
                assert np.array_equal(a.get_initial_charges(), [0.125, -0.5, 1e-3]), a.get_initial_charges()
                assert a.arrays['fixed'].dtype == bool and list(a.arrays['fixed']) == [True, False, True], a.arrays['fixed']
                assert list(a.arrays['label']) == ['core', 'shell', 'core'], a.arrays['label']
                assert np.array_equal(a.arrays['dipole'], [[0.5, 1.0, -1.5], [0, 0, 0], [2, 2, 2]]), a.arrays['dipole']
                print('OK')
                """, out.toString());
        assertThat(r.output()).contains("OK");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader(
                "1\nProperties=species:S:1:pos:R:3:tags:I:1\nH 0 0 0 1.5\n")), Path.of("t.xyz")))
                .hasMessageContaining("t.xyz:3").hasMessageContaining("'tags'").hasMessageContaining("'1.5'");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader(
                "1\nProperties=species:S:1:pos:R:3:q:X:1\nH 0 0 0 1\n")), Path.of("t.xyz")))
                .hasMessageContaining("t.xyz:2").hasMessageContaining("type 'X'");
    }

    @Test
    void malformedFilesNameTheLine() {
        Path f = Path.of("bad.xyz");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader("three\n")), f))
                .hasMessageContaining("bad.xyz:1").hasMessageContaining("atom count");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader("3\nProperties=species:S:1:pos:R:3\nH 0 0 0\nH 1 0 0\n")), f))
                .hasMessageContaining("bad.xyz:5").hasMessageContaining("atom 3 of 3");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader("1\n\nH 0 0\n")), f))
                .hasMessageContaining("bad.xyz:3").hasMessageContaining("expected 4 columns");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader("1\n\nH 0 zero 0\n")), f))
                .hasMessageContaining("bad.xyz:3").hasMessageContaining("'zero'");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader("1\n\nQq 0 0 0\n")), f))
                .hasMessageContaining("bad.xyz:3").hasMessageContaining("unknown element 'Qq'");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader(
                "1\nLattice=\"1 0 0 2 0 0 0 0 1\" pbc=\"T T T\"\nH 0 0 0\n")), f))
                .hasMessageContaining("bad.xyz:2").hasMessageContaining("linearly dependent");
        assertThatThrownBy(() -> ExtXyz.read(new BufferedReader(new StringReader("1\nid=first\nH 0 0 0\n")), f))
                .hasMessageContaining("bad.xyz:2").hasMessageContaining("id=");
    }

    @Test
    void aRoundTripKeepsEveryValueExactly() throws Exception {
        AtomicSystem s = argonPair();
        java.io.StringWriter sw = new java.io.StringWriter();
        ExtXyz.write(sw, List.of(s));
        AtomicSystem back = ExtXyz.read(new BufferedReader(new StringReader(sw.toString())), Path.of("mem")).getFirst();
        assertThat(back.positions()).containsExactly(s.positions());
        assertThat(back.id()).isEqualTo(17);
        assertThat(back.energy()).isEqualTo(s.energy());
        for (int i = 0; i < 6; i++) {
            assertThat(back.velocities()[i]).isCloseTo(s.velocities()[i], org.assertj.core.api.Assertions.within(1e-15));
        }
    }
}
