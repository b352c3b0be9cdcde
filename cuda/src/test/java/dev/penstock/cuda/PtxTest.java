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

/// The shipped PTX: it has every kernel `EncodeKernels` launches, it assembles for sm_90 (H100,
/// H200) where `ptxas` is installed, and it is what `encode.cu` compiles to today where `nvcc` is.
class PtxTest {
    @TempDir
    Path dir;

    private static final List<String> KERNELS = List.of("amplitude_f64_c128", "angle_f64_c128", "basis_f64_c128", "phase_f64_c128",
            "iqp_phases_f64_c128", "amplitude_f32_c64", "angle_f32_c64", "basis_f32_c64", "phase_f32_c64", "iqp_phases_f32_c64",
            "amplitude_f64_c64", "iqp_phases_f64_c64", "butterfly_c128", "butterfly_c64", "read_all");

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
    void thePtxAssemblesForTheH200() throws Exception {
        assumeTrue(Ci.required() || onPath("ptxas"), "ptxas (CUDA toolkit) is not installed");
        Path f = dir.resolve("encode.ptx");
        Files.write(f, EncodeKernels.ptx());
        assertThat(run(dir, "ptxas", "-arch=sm_90", "-o", dir.resolve("encode.cubin").toString(), f.toString())).isZero();
    }

    @Test
    void theShippedPtxIsWhatTheSourceCompilesTo() throws Exception {
        assumeTrue(Ci.required() || onPath("nvcc"), "nvcc (CUDA toolkit) is not installed");
        Path src = Path.of("src/main/cuda/encode.cu").toAbsolutePath();
        Path out = dir.resolve("fresh.ptx");
        assertThat(run(dir, "nvcc", "-ptx", "-arch=compute_90", "-O3", "-std=c++17", "-o", out.toString(), src.toString())).isZero();
        assertThat(Files.readString(out, StandardCharsets.US_ASCII)).as("rerun scripts/build-kernels.sh and commit the PTX").isEqualTo(ptx());
    }
}
