package dev.penstock.cuda;

import static dev.penstock.cuda.StageEmulation.BCC;
import static dev.penstock.cuda.StageEmulation.FCC;
import static dev.penstock.cuda.StageEmulation.cluster;
import static dev.penstock.cuda.StageEmulation.crystal;
import static dev.penstock.cuda.StageEmulation.run;
import static dev.penstock.cuda.StageEmulation.sameAsTheCpu;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.io.Elements;
import dev.penstock.atoms.potential.LammpsPairFile;
import dev.penstock.atoms.potential.Mliap;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.cuda.StageEmulation.Result;
import dev.penstock.device.CpuDevice;
import dev.penstock.testing.Ci;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/// SNAP and ML-IAP on a device stage on CUDA (`CudaSnap`: `snap.cu`'s passes over the packed
/// batch) against the same pipeline on `CpuDevice`
/// (`DescriptorModel` over each system's rows): every system takes the same steps in every
/// sub-stage and ends at the same energy to 1e-10, positions to 1e-9 Å and virial to 1e-10 of
/// its largest component — for LAMMPS's shipped models, read from their `*.snap` and `*.mliap`
/// files (ZBL overlaid where they say so): linear SNAP (Ta06A; W, twojmax 8; Mo without ZBL),
/// quadratic SNAP (Cu_Zuo), SNAP over two elements with chemflag (InP), and ML-IAP's linear (W–Be),
/// quadratic (W) and nn (Ta, Cu) models; bcc, fcc and zincblende crystals, triclinic ones among
/// them, and free clusters; one evaluation of each kind of model to 1e-12. Run on the host
/// emulation of the driver by `SnapStageEmulationTest` and on a GPU by `SnapStageGpuTest`.
abstract class SnapStageChecks {
    private static final List<Path> PLACES = places();

    /// Where LAMMPS's model files are: `$PENSTOCK_LAMMPS_POTENTIALS` (the GPU bundle's copy), then
    /// Debian's lammps-data.
    private static List<Path> places() {
        List<Path> p = new java.util.ArrayList<>();
        String given = System.getenv("PENSTOCK_LAMMPS_POTENTIALS");
        if (given != null) {
            p.add(Path.of(given));
        }
        p.add(Path.of("/usr/share/lammps/potentials"));
        p.add(Path.of("/usr/share/lammps/examples/mliap"));
        return List.copyOf(p);
    }

    /// The device under test.
    abstract CudaDevice openDevice();

    private static Path find(String name) {
        for (Path d : PLACES) {
            if (Files.isReadable(d.resolve(name))) {
                return d.resolve(name);
            }
        }
        assumeTrue(Ci.required(), "LAMMPS's potential files (lammps-data) are not installed");
        throw new AssertionError(name + " is not among LAMMPS's files " + PLACES);
    }

    /// A LAMMPS `*.snap` or `*.mliap` file's model (ZBL overlaid, where it says so).
    private static Supplier<Model> file(String name) {
        try {
            return LammpsPairFile.read(find(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Supplier<Model> mliap(String kind, String model, String descriptor) {
        try {
            Mliap m = Mliap.read(kind, find(model), find(descriptor));
            return m::fresh;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /// The systems through the pipeline on CUDA and on the CPU, after checking the CUDA kernels run
    /// the model (no CPU fallback).
    private void check(Supplier<Model> model, List<AtomicSystem> systems) {
        Model m = model.get();
        try (CudaDevice d = openDevice()) {
            CudaRelaxKernels k = new CudaRelaxKernels(d);
            assertThat(k.runs(m)).as("the CUDA kernels run %s", m).isTrue();
            k.close();
        }
        sameAsTheCpu(this::openDevice, model, systems);
    }

    @Test
    void linearSnapTantalumAndTungstenWithZblOnCudaTakeTheCpuSteps() {
        check(file("Ta06A.snap"), List.of(crystal(0, BCC, 3, 3.316, 0, new int[] {73, 73}, 0, 1), cluster(1, 27, 2.87, new int[] {73, 73}, 0, 2),
                crystal(2, BCC, 3, 3.316, 0.6, new int[] {73, 73}, 0, 3)));
        check(file("W_2940_2017_2.snap"), List.of(crystal(10, BCC, 3, 3.165, 0.4, new int[] {74, 74}, 0, 4), cluster(11, 19, 2.74,
                new int[] {74, 74}, 0, 5)));
    }

    @Test
    void snapWithoutZblQuadraticSnapAndChemflagIndiumPhosphideOnCudaTakeTheCpuSteps() {
        check(file("Mo_Chen_PRM2017.snap"), List.of(crystal(15, BCC, 3, 3.16, 0.3, new int[] {42, 42}, 0, 14)));
        check(file("Cu_Zuo_JPCA2020.quadratic.snap"), List.of(crystal(20, FCC, 3, 3.62, 0, new int[] {29, 29}, 0, 6),
                cluster(21, 43, 2.56, new int[] {29, 29}, 0, 7)));
        double[][] zincblende = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}, {0.25, 0.25, 0.25}, {0.75, 0.75, 0.25}, {0.75, 0.25, 0.75},
            {0.25, 0.75, 0.75}};
        AtomicSystem inp = crystal(30, zincblende, 2, 5.87, 0.3, new int[] {49, 49}, 0, 8);
        int[] z = new int[inp.atoms()];
        double[] m = new double[z.length];
        for (int i = 0; i < z.length; i++) { // the fcc sites indium, the others phosphorus
            z[i] = i % zincblende.length < 4 ? 49 : 15;
            m[i] = Elements.mass(z[i]);
        }
        check(file("InP_JCPA2020.snap"), List.of(new AtomicSystem(30, inp.positions(), m, z, inp.cell())));
    }

    @Test
    void mliapLinearQuadraticAndNetworkModelsOnCudaTakeTheCpuSteps() {
        check(file("Ta06A.nn.mliap"), List.of(crystal(40, BCC, 3, 3.316, 0.5, new int[] {73, 73}, 0, 9), cluster(41, 27, 2.87, new int[] {73, 73},
                0, 10)));
        check(mliap("nn", "Cu.nn.mliap.model", "Cu.snap.mliap.descriptor"), List.of(crystal(50, FCC, 3, 3.62, 0, new int[] {29, 29}, 0, 11)));
        check(file("W.quadratic.mliap"), List.of(crystal(60, BCC, 3, 3.165, 0, new int[] {74, 74}, 0, 12)));
        check(file("WBe_Wood_PRB2019.mliap"), List.of(crystal(70, BCC, 3, 3.165, 0, new int[] {74, 4}, 0.1, 13)));
    }

    /// `npt` tri, `nph` aniso and `fire_cell` under SNAP (with ZBL) and ML-IAP on CUDA: the lists
    /// follow the changing cells; the CPU's steps, and energy, positions, virial and cell to rounding.
    @Test
    void barostatsAndTheCellRelaxationUnderSnapAndMliapOnCudaTakeTheCpuSteps() {
        sameAsTheCpu(this::openDevice, file("Ta06A.snap"), List.of(crystal(80, BCC, 3, 3.316, 0.6, new int[] {73, 73}, 0, 15)),
                dev.penstock.cuda.StageEmulation.CELLS, dev.penstock.cuda.StageEmulation.CELL_STEPS);
        sameAsTheCpu(this::openDevice, file("W.quadratic.mliap"), List.of(crystal(81, BCC, 3, 3.165, 0, new int[] {74, 74}, 0, 16)),
                dev.penstock.cuda.StageEmulation.CELLS, dev.penstock.cuda.StageEmulation.CELL_STEPS);
    }

    @Test
    void oneEvaluationOnCudaIsTheCpusToRoundingForEveryKindOfModel() throws Exception {
        List<Supplier<Model>> models = List.of(file("Ta06A.snap"), file("Cu_Zuo_JPCA2020.quadratic.snap"), file("Ta06A.nn.mliap"),
                file("W.quadratic.mliap"));
        List<AtomicSystem> systems = List.of(crystal(80, BCC, 3, 3.316, 0.7, new int[] {73, 73}, 0, 15), crystal(81, FCC, 3, 3.62, 0.5,
                new int[] {29, 29}, 0, 16), cluster(82, 27, 2.87, new int[] {73, 73}, 0, 17), crystal(83, BCC, 3, 3.165, 0.2, new int[] {74, 74}, 0,
                18));
        String once = "fire(fmax=1e9)"; // converged at the first evaluation: the energy, forces and virial of the input
        for (int k = 0; k < models.size(); k++) {
            List<AtomicSystem> one = List.of(systems.get(k));
            Result c;
            try (CpuDevice d = new CpuDevice()) {
                c = run(d, x -> new CpuRelaxKernels(1), models.get(k).get(), one, once).values().iterator().next();
            }
            Result g;
            try (CudaDevice d = openDevice()) {
                g = run(d, x -> new CudaRelaxKernels(d), models.get(k).get(), one, once).values().iterator().next();
            }
            String what = systems.get(k).id() + " " + models.get(k).get();
            assertThat(g.stages()).as(what).isEqualTo("fire:0");
            assertThat(Math.abs(g.energy() - c.energy())).as(what + ": energy").isLessThanOrEqualTo(1e-12 * Math.abs(c.energy()));
            double fscale = Arrays.stream(c.forces()).map(Math::abs).max().orElseThrow();
            for (int q = 0; q < c.forces().length; q++) {
                assertThat(Math.abs(g.forces()[q] - c.forces()[q])).as(what + ": force component %d", q).isLessThanOrEqualTo(1e-12 * fscale);
            }
            double wscale = Arrays.stream(c.virial()).map(Math::abs).max().orElseThrow();
            for (int q = 0; q < 9; q++) {
                assertThat(Math.abs(g.virial()[q] - c.virial()[q])).as(what + ": virial component %d", q).isLessThanOrEqualTo(1e-12 * wscale);
            }
        }
    }

    @Test
    void aSystemOnCudaEndsWithTheSameBitsAloneAsInABatch() throws Exception {
        Supplier<Model> ta = file("Ta06A.snap");
        List<AtomicSystem> systems = List.of(cluster(0, 15, 2.87, new int[] {73, 73}, 0, 1), crystal(1, BCC, 3, 3.316, 0.9, new int[] {73, 73}, 0, 3),
                cluster(2, 27, 2.87, new int[] {73, 73}, 0, 2));
        try (CudaDevice d = openDevice()) {
            Map<Long, Result> together = run(d, x -> new CudaRelaxKernels(d), ta.get(), systems);
            for (AtomicSystem s : systems) {
                Result alone = run(d, x -> new CudaRelaxKernels(d), ta.get(), List.of(s)).get(s.id());
                Result batched = together.get(s.id());
                assertThat(alone.stages()).as("system %d", s.id()).isEqualTo(batched.stages());
                assertThat(alone.energy()).as("system %d: energy", s.id()).isEqualTo(batched.energy());
                assertThat(alone.positions()).as("system %d: positions", s.id()).isEqualTo(batched.positions());
            }
        }
    }
}
