package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.memory.DType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `encode --runner flink --device cuda`: each task encodes its ranges on a GPU of its own (task k
/// on GPU k mod the GPUs seen), here through the host emulation of the CUDA driver
/// (`cuda/src/test/cpp/hostcuda.cpp`, built with g++ against the toolkit's `cuda.h`, loaded by a
/// child JVM through `PENSTOCK_CUDA_DRIVER`, as `scripts/gpu-dry-run.sh` does): the joined states
/// are the CPU encode's to rounding, every row in its place, the row indices and manifest as a CPU
/// job writes them. Skipped, saying why, where g++ or `cuda.h` is missing; CI has both.
class EncodeFlinkGpuTest {
    private static final Path CUDA_INCLUDE = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "include");

    @TempDir
    Path dir;

    /// The emulation, built into this module's target folder once.
    private static synchronized Path hostDriver() throws Exception {
        boolean buildable = Files.isExecutable(Path.of("/usr/bin/g++")) && Files.isRegularFile(CUDA_INCLUDE.resolve("cuda.h"));
        if (!buildable && dev.penstock.testing.Ci.required()) {
            throw new AssertionError("the host CUDA emulation cannot be built: g++ or " + CUDA_INCLUDE.resolve("cuda.h") + " is missing");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(buildable, "g++ or " + CUDA_INCLUDE.resolve("cuda.h") + " is missing");
        Path lib = Path.of("target", "hostcuda", "libhostcuda.so").toAbsolutePath();
        if (!Files.isRegularFile(lib)) {
            Files.createDirectories(lib.getParent());
            Path cuda = Path.of("..", "cuda", "src", "test", "cpp");
            Process p = new ProcessBuilder("/usr/bin/g++", "-std=c++20", "-O2", "-shared", "-fPIC", "-pthread", "-I" + cuda.resolve("stub"),
                    "-I" + CUDA_INCLUDE, "-o", lib.toString(), cuda.resolve("hostcuda.cpp").toString()).redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(log).isZero();
        }
        return lib;
    }

    /// `penstock ARGS` in a child JVM whose CUDA driver is `driver`; returns what it printed.
    private String child(Path driver, int expectedCode, String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        Path log = dir.resolve("child.log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("PENSTOCK_CUDA_DRIVER", driver.toString());
        Process p = pb.start();
        if (!p.waitFor(240, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the child did not finish in 240 s:\n" + Files.readString(log));
        }
        String printed = Files.readString(log);
        assertThat(p.exitValue()).as(printed).isEqualTo(expectedCode);
        return printed;
    }

    @Test
    void eachTaskEncodesOnItsGpuAndTheJoinedStatesAreTheCpuEncodes() throws Exception {
        Path driver = hostDriver();
        Path in = NothingLostTest.rows(dir.resolve("rows.npy"), 3000, 16);
        Path cpu = dir.resolve("cpu.npy");
        Path gpu = dir.resolve("gpu.npy");
        MainTest.run(0, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "4", "--rows-per-chunk", "256", "--out", cpu.toString());
        String printed = child(driver, 0, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "4", "--rows-per-chunk", "256",
                "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "0", "--device", "cuda", "--out", gpu.toString());
        assertThat(printed).contains("encoded 3000 of 3000 rows").contains("on Flink");
        try (NpyFile a = NpyFile.open(cpu); NpyFile b = NpyFile.open(gpu)) {
            assertThat(b.dtype()).isEqualTo(DType.C128);
            assertThat(b.shape()).isEqualTo(a.shape());
            long n = a.block().segment().byteSize() / 8;
            long differ = 0;
            for (long i = 0; i < n; i++) { // the kernel's sums run in another order: equal to rounding
                double want = a.block().segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, i);
                double got = b.block().segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, i);
                assertThat(got).as("value %d (row %d)", i, i / 32).isCloseTo(want, within(1e-12));
                differ += Double.doubleToRawLongBits(got) != Double.doubleToRawLongBits(want) ? 1 : 0;
            }
            // the kernel's norm is a tree sum (the CPU's runs in lane order): some states differ in
            // their last bits — they came from the emulated GPU, not from a CPU fallback
            assertThat(differ).as("values whose bits differ from the CPU encode's").isPositive();
        }
        assertThat(Files.readAllBytes(Path.of(gpu + ".rows.npy"))).as("row indices").isEqualTo(Files.readAllBytes(Path.of(cpu + ".rows.npy")));
        assertThat(Files.readString(Path.of(gpu + ".manifest.json"))).contains("\"shards\"");
    }

    @Test
    void float32RowsIntoC128StatesAreRefusedBeforeAnyJob() throws Exception {
        Path driver = hostDriver();
        Path in = dir.resolve("rows32.npy");
        try (var arena = dev.penstock.memory.Memory.newConfinedArena("t");
             var w = dev.penstock.formats.npy.NpyWriter.open(in, DType.F32, 4)) {
            var b = arena.allocate(DType.F32, 10, 4);
            for (long i = 0; i < 40; i++) {
                b.segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, 1f + i);
            }
            w.append(b);
            w.commit();
        }
        Path out = dir.resolve("never.npy");
        String printed = child(driver, ExitCodes.USAGE, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "2", "--precision",
                "f64", "--runner", "flink", "--device", "cuda", "--out", out.toString());
        assertThat(printed).contains("option '--precision'").contains("c64").doesNotContain("\tat ");
        assertThat(out).doesNotExist();
    }
}
