package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Ci;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The shipped PTX: it has every kernel `EncodeKernels`, `CudaRelaxKernels`, `CudaEam` and `CudaSnap` launch, each
/// file assembles for its oldest target, sm_75, and for sm_90 (H100, H200) where `ptxas` is installed, and each is what its `.cu`
/// compiles to today (with `scripts/build-kernels.sh`'s flags) where `nvcc` is.
class PtxTest {
    @TempDir
    Path dir;

    private static final List<String> KERNELS = List.of("amplitude_f64_c128", "angle_f64_c128", "basis_f64_c128", "phase_f64_c128",
            "iqp_phases_f64_c128", "amplitude_f32_c64", "angle_f32_c64", "basis_f32_c64", "phase_f32_c64", "iqp_phases_f32_c64",
            "amplitude_f64_c64", "iqp_phases_f64_c64", "butterfly_c128", "butterfly_c64", "read_all");
    private static final List<String> RELAX_KERNELS = List.of("relax_list_check", "relax_list_moved", "relax_list_grid", "relax_list_count", "relax_list_prefix", "relax_list_scatter", "relax_list_build", "relax_forces", "relax_reduce", "relax_virial", "relax_fire_step", "relax_fire2_step", "relax_nve", "relax_langevin", "relax_nh_chain", "relax_check",
            "relax_gather_systems", "relax_gather_atoms", "relax_move_systems");
    private static final List<String> SNAP_KERNELS = List.of("snap_ui", "snap_bi", "snap_linear", "mliap_nn", "snap_yi", "snap_deidrj", "snap_force",
            "snap_virial", "zbl_add");
    private static final List<String> SOURCES = List.of("encode", "eam", "relax", "snap");

    private static String ptx() {
        return new String(EncodeKernels.ptx(), StandardCharsets.US_ASCII);
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private static int run(Path cwd, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        if (rc != 0) {
            System.err.println(String.join(" ", cmd) + ":\n" + out);
        }
        return rc;
    }

    @Test
    void everyKernelIsAnEntryOfTheShippedPtx() {
        String ptx = ptx();
        for (String k : KERNELS) {
            assertThat(ptx).as(k).contains(".entry " + k + "(");
        }
    }

    @Test
    void everyRelaxationKernelIsAnEntryOfItsPtx() {
        String ptx = new String(KernelModule.ptx(CudaRelaxKernels.PTX), StandardCharsets.US_ASCII);
        for (String k : RELAX_KERNELS) {
            assertThat(ptx).as(k).contains(".entry " + k + "(");
        }
        assertThat(ptx).as("relax.ptx is built without fused multiply-adds").doesNotContain("fma.");
    }

    @Test
    void everySnapKernelIsAnEntryOfItsPtx() {
        String ptx = new String(KernelModule.ptx(CudaRelaxKernels.SNAP_PTX), StandardCharsets.US_ASCII);
        for (String k : SNAP_KERNELS) {
            assertThat(ptx).as(k).contains(".entry " + k + "(");
        }
    }

    @Test
    void thePtxTargetsTheOldestSupportedGpuAndAssemblesForItAndTheH200() throws Exception {
        assumeTrue(Ci.required() || onPath("ptxas"), "ptxas (CUDA toolkit) is not installed");
        for (String name : SOURCES) {
            String text = new String(KernelModule.ptx("/dev/penstock/cuda/" + name + ".ptx"), StandardCharsets.US_ASCII);
            assertThat(text).as(name + " targets what CudaDevice accepts").contains(".target sm_" + CudaDevice.MIN_COMPUTE_CAPABILITY + "\n")
                    .contains(".version " + CudaDevice.PTX_ISA + "\n");
            Path f = dir.resolve(name + ".ptx");
            Files.writeString(f, text, StandardCharsets.US_ASCII);
            for (String arch : List.of("sm_" + CudaDevice.MIN_COMPUTE_CAPABILITY, "sm_90")) {
                assertThat(run(dir, "ptxas", "-arch=" + arch, "-o", dir.resolve(name + ".cubin").toString(), f.toString())).as(name + " " + arch)
                        .isZero();
            }
        }
    }

    @Test
    void theShippedPtxIsWhatTheSourceCompilesTo() throws Exception {
        assumeTrue(Ci.required() || onPath("nvcc"), "nvcc (CUDA toolkit) is not installed");
        for (String name : SOURCES) {
            Path src = Path.of("src/main/cuda/" + name + ".cu").toAbsolutePath();
            Path out = dir.resolve(name + "-fresh.ptx");
            List<String> cmd = new java.util.ArrayList<>(List.of("nvcc", "-ptx", "-arch=compute_" + CudaDevice.MIN_COMPUTE_CAPABILITY, "-O3", "-std=c++17"));
            if (name.equals("relax")) {
                cmd.add("-fmad=false"); // as scripts/build-kernels.sh
            }
            cmd.addAll(List.of("-o", out.toString(), src.toString()));
            assertThat(run(dir, cmd.toArray(String[]::new))).as(name).isZero();
            assertThat(Files.readString(out, StandardCharsets.US_ASCII)).as(name + ": rerun scripts/build-kernels.sh and commit the PTX")
                    .isEqualTo(new String(KernelModule.ptx("/dev/penstock/cuda/" + name + ".ptx"), StandardCharsets.US_ASCII));
        }
    }
}
