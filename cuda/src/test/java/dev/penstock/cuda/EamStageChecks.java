package dev.penstock.cuda;

import static dev.penstock.cuda.StageEmulation.SEED;
import static dev.penstock.cuda.StageEmulation.cluster;
import static dev.penstock.cuda.StageEmulation.crystal;
import static dev.penstock.cuda.StageEmulation.run;
import static dev.penstock.cuda.StageEmulation.sameAsTheCpu;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.Tersoff;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.cuda.StageEmulation.Result;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/// EAM on a device stage on CUDA (`CudaEam`: `eam.cu`'s passes over the packed batch) against the
/// same pipeline on `CpuDevice` (the model over
/// each system's rows), fire + langevin | nve + nvt: every system takes the same steps in every sub-stage, ends at the same
/// energy to 1e-10, the same virial to 1e-10 of its largest component and the same positions to 1e-9 Å (a full list gathered per atom against the
/// CPU's half list: rounding apart), in a chained pipeline with a fused stage, for funcfl,
/// setfl (an alloy, a triclinic cell) and Finnis–Sinclair files, free and periodic systems; the
/// barostats and cell relaxations over changing cells. Run on the host emulation of the driver by
/// `EamStageEmulationTest` and on a GPU by `EamStageGpuTest`.
abstract class EamStageChecks {
    /// The device under test.
    abstract CudaDevice openDevice();

    /// LAMMPS's potential file `name`: in `$PENSTOCK_LAMMPS_POTENTIALS` (the GPU bundle's copy),
    /// else Debian's lammps-data.
    private static Path potential(String name) {
        String given = System.getenv("PENSTOCK_LAMMPS_POTENTIALS");
        Path p = given != null && Files.isReadable(Path.of(given, name)) ? Path.of(given, name)
                : Path.of("/usr/share/lammps/potentials").resolve(name);
        assumeTrue(Files.isReadable(p) || Ci.required(), "LAMMPS's potential files (lammps-data) are not installed");
        return p;
    }

    @Test
    void copperClustersAndABoxOnCudaTakeTheCpuStepsToRounding() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        sameAsTheCpu(this::openDevice, cu::fresh, List.of(cluster(0, 13, 2.55, new int[] {29, 29}, 0, 1),
                cluster(1, 55, 2.55, new int[] {29, 29}, 0, 2), crystal(2, 3, 3.615, 0, new int[] {29, 29}, 0, 3),
                cluster(3, 38, 2.55, new int[] {29, 29}, 0, 4)));
    }

    @Test
    void anAlloyInATriclinicCellAndAFinnisSinclairClusterOnCudaTakeTheCpuSteps() throws Exception {
        sameAsTheCpu(this::openDevice, Eam.read(potential("CuNi.eam.alloy"))::fresh, List.of(crystal(10, 3, 3.56, 1.3, new int[] {29, 28}, 0.4, 6),
                cluster(11, 79, 2.5, new int[] {29, 28}, 0.5, 7)));
        sameAsTheCpu(this::openDevice, Eam.read(potential("CuZr_mm.eam.fs"))::fresh, List.of(cluster(20, 55, 2.7, new int[] {29, 40}, 0.3, 8)));
    }

    /// `npt` tri, `nph` aniso and `fire_cell` under EAM on CUDA (`relax_mtk`, `relax_fire_cell`;
    /// `BatchLists` taking each entry's shift from the changing cell, rebuilding where the strain
    /// asks): copper crystals, one sheared, and an alloy — the CPU's steps, and energy, positions,
    /// virial and cell to rounding.
    @Test
    void barostatsAndTheCellRelaxationUnderEamOnCudaTakeTheCpuSteps() throws Exception {
        sameAsTheCpu(this::openDevice, Eam.read(potential("Cu_u3.eam"))::fresh, List.of(
                crystal(30, 3, 3.615, 0, new int[] {29, 29}, 0, 9), crystal(31, 3, 3.615, 0.9, new int[] {29, 29}, 0, 10)),
                StageEmulation.CELLS, StageEmulation.CELL_STEPS);
        sameAsTheCpu(this::openDevice, Eam.read(potential("CuNi.eam.alloy"))::fresh, List.of(
                crystal(32, 3, 3.56, 1.3, new int[] {29, 28}, 0.4, 11)), StageEmulation.CELLS, StageEmulation.CELL_STEPS);
    }

    /// A barostat driven to blow up under EAM on CUDA (a million kbar through a 10 fs pdamp):
    /// every system it wrecks is quarantined with a one-line diagnosis naming it (an atom flung, a
    /// cell that is none — `BatchLists` then keeps its old list and flags it —, or a non-finite
    /// result), and nothing throws.
    @Test
    void aBarostatThatBlowsUpUnderEamOnCudaQuarantinesItsSystems() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        List<AtomicSystem> systems = List.of(crystal(40, 3, 3.615, 0, new int[] {29, 29}, 0, 12), crystal(41, 3, 3.615, 0.7,
                new int[] {29, 29}, 0, 13));
        for (String p : new String[] {"1e9", "-1e9"}) {
            try (CudaDevice d = openDevice()) {
                Map<Long, Result> out = run(d, x -> new CudaRelaxKernels(d), cu.fresh(), systems,
                        "npt(T=500, P=" + p + ", tdamp=20, pdamp=10, dt=2, steps=300)");
                assertThat(out).as("P %s bar", p).hasSize(2).allSatisfy((id, r) -> assertThat(r.diagnosis()).as("P %s bar, system %d", p, id)
                        .startsWith("system " + id).containsAnyOf("its cell is no longer one", "moved more than", "non-finite"));
            }
        }
    }

    @Test
    void aSystemOnCudaEndsWithTheSameBitsAloneAsInABatch() throws Exception {
        Eam cu = Eam.read(potential("Cu_u3.eam"));
        List<AtomicSystem> systems = List.of(cluster(0, 13, 2.55, new int[] {29, 29}, 0, 1), crystal(1, 3, 3.615, 0.9, new int[] {29, 29}, 0, 3),
                cluster(2, 55, 2.55, new int[] {29, 29}, 0, 2));
        try (CudaDevice d = openDevice()) {
            Map<Long, Result> together = run(d, x -> new CudaRelaxKernels(d), cu.fresh(), systems);
            for (AtomicSystem s : systems) {
                Result alone = run(d, x -> new CudaRelaxKernels(d), cu.fresh(), List.of(s)).get(s.id());
                Result batched = together.get(s.id());
                assertThat(alone.stages()).as("system %d", s.id()).isEqualTo(batched.stages());
                assertThat(alone.energy()).as("system %d: energy", s.id()).isEqualTo(batched.energy());
                assertThat(alone.positions()).as("system %d: positions", s.id()).isEqualTo(batched.positions());
            }
        }
    }

    @Test
    void aModelTheCudaKernelsDoNotRunIsRefusedWhenTheBatchIsMadeNamingIt() throws Exception {
        Tersoff si = Tersoff.read(potential("Si.tersoff"));
        try (CudaDevice d = openDevice()) {
            Stage<AtomicSystem> stage = DeviceStages.stage(PipelineSpec.parse("fire(fmax=0.05)").getFirst(), si, d, x -> new CudaRelaxKernels(d),
                    Double.POSITIVE_INFINITY, SEED);
            Pipeline<AtomicSystem> p = Pipeline.of(stage).sizer(Systems.withListRadius(si.cutoff()))
                    .batchCapacity(Capacity.of(2, 100, Long.MAX_VALUE)).samples(List.of(cluster(0, 13, 2.35, new int[] {14, 14}, 0, 1))).results(MemorySink.unbounded("r"));
            try (p) {
                assertThatThrownBy(p::run).hasStackTraceContaining("its kernels do not run tersoff(file=Si.tersoff)");
            }
        }
    }
}
