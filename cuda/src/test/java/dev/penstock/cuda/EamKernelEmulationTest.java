package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.io.Elements;
import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.testing.Ci;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The EAM kernels (`src/main/cuda/eam.cu`: density, embedding, force passes, one thread per atom
/// over a full neighbour list) checked without a GPU: `src/test/cpp/emulate_eam.cpp` compiles
/// them for the host, and their energies and forces must match the CPU `Eam` (a half list, each
/// pair once — so to rounding) for funcfl, setfl and Finnis–Sinclair files, periodic and free.
/// The shipped `eam.ptx` must hold the three entries (`PtxTest` assembles it and compares it with
/// what the source compiles to). Needs g++ and LAMMPS's potential files.
class EamKernelEmulationTest {
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");
    private static final String PTX = "/dev/penstock/cuda/eam.ptx";

    @TempDir
    static Path dir;
    private static Path emulator;

    @BeforeAll
    static void build() throws Exception {
        assumeTrue(Ci.required() || Files.isExecutable(Path.of("/usr/bin/g++")), "g++ is not installed");
        assumeTrue(Ci.required() || Files.isReadable(POTENTIALS.resolve("Cu_u3.eam")), "LAMMPS's potential files are not installed");
        emulator = dir.resolve("emulate_eam");
        Process p = new ProcessBuilder("/usr/bin/g++", "-std=c++20", "-O1", "-pthread", "-Isrc/test/cpp/stub", "-o", emulator.toString(),
                "src/test/cpp/emulate_eam.cpp").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
    }

    @Test
    void funcflCopperBulkMatchesTheCpuPath() throws Exception {
        check("Cu_u3.eam", fcc(1, 4, 3.615, 0, new int[] {29, 29}, 0, 3));
    }

    @Test
    void setflTriclinicAlloyMatchesTheCpuPath() throws Exception {
        check("CuNi.eam.alloy", fcc(2, 3, 3.56, 1.3, new int[] {29, 28}, 0.4, 5));
    }

    @Test
    void finnisSinclairClusterMatchesTheCpuPath() throws Exception {
        SplittableRandom rnd = new SplittableRandom(9);
        int n = 147;
        double[] r = Clusters.fccSites(n, 2.7);
        int[] z = new int[n];
        for (int i = 0; i < n; i++) {
            for (int d = 0; d < 3; d++) {
                r[3 * i + d] += rnd.nextDouble(-0.1, 0.1);
            }
            z[i] = rnd.nextDouble() < 0.3 ? 40 : 29;
        }
        check("CuZr_mm.eam.fs", new AtomicSystem(3, r, masses(z), z, Cell.free()));
    }

    @Test
    void theShippedPtxHoldsTheKernels() throws Exception {
        String ptx = new String(ptx(), StandardCharsets.US_ASCII);
        for (String k : List.of("eam_density", "eam_embed", "eam_force")) {
            assertThat(ptx).as(k).contains(".entry " + k + "(");
        }
        // that it assembles for its target and the H200, and is what eam.cu compiles to: PtxTest
    }

    private static byte[] ptx() throws Exception {
        try (InputStream in = EamKernelEmulationTest.class.getResourceAsStream(PTX)) {
            assertThat(in).as(PTX + " on the class path").isNotNull();
            return in.readAllBytes();
        }
    }

    private static double[] masses(int[] z) {
        double[] m = new double[z.length];
        for (int i = 0; i < z.length; i++) {
            m[i] = Elements.mass(z[i]);
        }
        return m;
    }

    private static AtomicSystem fcc(long id, int k, double a, double tiltXy, int[] species, double mix, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        int n = 4 * k * k * k;
        double[] r = new double[3 * n];
        int[] z = new int[n];
        int p = 0;
        for (int x = 0; x < k; x++) {
            for (int y = 0; y < k; y++) {
                for (int w = 0; w < k; w++) {
                    for (double[] b : basis) {
                        double fy = (y + b[1]) / k;
                        r[3 * p] = (x + b[0]) * a + fy * tiltXy + rnd.nextDouble(-0.1, 0.1);
                        r[3 * p + 1] = (y + b[1]) * a + rnd.nextDouble(-0.1, 0.1);
                        r[3 * p + 2] = (w + b[2]) * a + rnd.nextDouble(-0.1, 0.1);
                        z[p] = rnd.nextDouble() < mix ? species[1] : species[0];
                        p++;
                    }
                }
            }
        }
        return new AtomicSystem(id, r, masses(z), z, Cell.of(new double[] {k * a, 0, 0, tiltXy, k * a, 0, 0, 0, k * a},
                new boolean[] {true, true, true}));
    }

    private void check(String file, AtomicSystem s) throws Exception {
        Eam eam = Eam.read(POTENTIALS.resolve(file));
        eam.compute(s);
        Eam.Tables t = eam.tables();
        // the full list: both directions of the half list's pairs, with their image shifts
        NeighborList half = new NeighborList(t.cutoff(), 0.5);
        half.build(s);
        int n = s.atoms();
        int[] start = new int[n + 1];
        for (int i = 0; i < n; i++) {
            for (int q = half.start()[i]; q < half.end()[i]; q++) {
                start[i + 1]++;
                start[half.second()[q] + 1]++;
            }
        }
        for (int i = 0; i < n; i++) {
            start[i + 1] += start[i];
        }
        int m = start[n];
        int[] nbr = new int[m];
        double[] shift = new double[3 * m];
        int[] fill = Arrays.copyOf(start, n);
        for (int i = 0; i < n; i++) {
            for (int q = half.start()[i]; q < half.end()[i]; q++) {
                int j = half.second()[q];
                int c = 3 * half.imageCodes()[q];
                int a = fill[i]++;
                int b = fill[j]++;
                nbr[a] = j;
                nbr[b] = i;
                for (int d = 0; d < 3; d++) {
                    shift[3 * a + d] = half.imageShifts()[c + d];
                    shift[3 * b + d] = -half.imageShifts()[c + d];
                }
            }
        }
        int ne = t.numbers().length;
        int[] type = new int[n];
        for (int i = 0; i < n; i++) {
            while (t.numbers()[type[i]] != s.numbers()[i]) {
                type[i]++;
            }
        }
        long bytes = 4L * (8 + n + n + 1 + m + ne + 2L * ne * ne) + 8L * (4 + 3L * n + 3L * m)
                + 8L * (t.frho().length * (long) (t.nrho() + 1) * 7 + (t.rhor().length + t.z2r().length) * (long) (t.nr() + 1) * 7);
        ByteBuffer b = ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(n).putInt(ne).putInt(t.nr()).putInt(t.nrho()).putInt(t.frho().length).putInt(t.rhor().length).putInt(t.z2r().length).putInt(m);
        b.putDouble(t.cutoff() * t.cutoff()).putDouble(t.rdr()).putDouble(t.rdrho()).putDouble(t.rhomax());
        for (double x : s.positions()) {
            b.putDouble(x);
        }
        for (int[] ints : new int[][] {type, start, nbr}) {
            for (int v : ints) {
                b.putInt(v);
            }
        }
        for (double x : shift) {
            b.putDouble(x);
        }
        for (int[] ints : new int[][] {t.frhoOf(), t.rhorOf(), t.z2rOf()}) {
            for (int v : ints) {
                b.putInt(v);
            }
        }
        for (double[][] tables : new double[][][] {t.frho(), t.rhor(), t.z2r()}) {
            for (double[] table : tables) {
                for (double x : table) {
                    b.putDouble(x);
                }
            }
        }
        Path in = dir.resolve("in.bin");
        Path out = dir.resolve("out.bin");
        Files.write(in, b.array());
        Process p = new ProcessBuilder(emulator.toString(), in.toString(), out.toString()).redirectErrorStream(true).start();
        String msg = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(msg).isZero();
        ByteBuffer o = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
        double worst = 0;
        for (int i = 0; i < 3 * n; i++) {
            worst = Math.max(worst, Math.abs(o.getDouble() - s.forces()[i]));
        }
        double energy = 0;
        for (int i = 0; i < n; i++) {
            energy += o.getDouble();
        }
        double rel = Math.abs(energy - s.energy()) / Math.abs(s.energy());
        System.out.printf(java.util.Locale.ROOT, "%s, %d atoms: kernels vs CPU, energy %.2e relative, forces %.2e eV/Å%n", file, n, rel, worst);
        assertThat(rel).as("%s: energy", file).isLessThan(1e-12);
        assertThat(worst).as("%s: largest force difference (eV/Å)", file).isLessThan(1e-10);
    }
}
