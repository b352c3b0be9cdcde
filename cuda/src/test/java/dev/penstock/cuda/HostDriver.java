package dev.penstock.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Ci;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/// The host emulation of the CUDA driver (`src/test/cpp/hostcuda.cpp`), built once per JVM
/// with g++ against the toolkit's `cuda.h` into `target/hostcuda/libhostcuda.so`: the bindings
/// run end to end through it where no GPU is (its kernels are encode.cu compiled for the host).
/// Tests that use it are skipped, saying why, where g++ or `cuda.h` is missing, and fail under CI.
final class HostDriver {
    /// Where `cuda.h` is looked for: `$CUDA_HOME/include`, then the usual install path.
    static final Path CUDA_INCLUDE = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "include");
    private static Path library;
    private static String unavailable;
    private static CudaDriver.Probe probe;

    private HostDriver() {
    }

    /// The built library, or the test is skipped saying why it cannot be built here.
    static synchronized Path library() {
        if (library == null && unavailable == null) {
            unavailable = build();
        }
        if (unavailable != null && Ci.required()) {
            throw new AssertionError("the host CUDA emulation cannot be built: " + unavailable + " (CI runs it: .ci/run checks for g++ and cuda.h)");
        }
        assumeTrue(unavailable == null, () -> "the host CUDA emulation cannot be built: " + unavailable);
        return library;
    }

    private static String build() {
        if (!Files.isExecutable(Path.of("/usr/bin/g++"))) {
            return "g++ is not installed";
        }
        if (!Files.isRegularFile(CUDA_INCLUDE.resolve("cuda.h"))) {
            return CUDA_INCLUDE.resolve("cuda.h") + " is missing (set CUDA_HOME)";
        }
        try {
            Path out = Path.of("target", "hostcuda").toAbsolutePath();
            Files.createDirectories(out);
            Path lib = out.resolve("libhostcuda.so");
            Process p = new ProcessBuilder("/usr/bin/g++", "-std=c++20", "-O2", "-shared", "-fPIC", "-pthread", "-Isrc/test/cpp/stub",
                    "-I" + CUDA_INCLUDE, "-o", lib.toString(), "src/test/cpp/hostcuda.cpp").redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException("hostcuda.cpp does not compile (a prototype that differs from cuda.h fails here):\n" + log);
            }
            library = lib;
            return null;
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e.toString();
        }
    }

    /// The driver loaded from the emulation (one device). Its launches run their blocks in a
    /// shuffled order, on several threads (host_cuda.h): the seed is printed, and
    /// `PENSTOCK_HOSTCUDA_SEED=S` reruns a failure with the same orders.
    static synchronized CudaDriver.Probe probe() {
        Path lib = library();
        if (probe == null) {
            probe = CudaDriver.load(lib.toString());
            String given = System.getenv("PENSTOCK_HOSTCUDA_SEED");
            long seed = given != null ? Long.parseLong(given.strip()) : new java.util.SplittableRandom().nextLong() >>> 1;
            call("penstock_hostcuda_set_block_seed", FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG), seed);
            System.out.println("host CUDA emulation: kernel blocks run in shuffled orders on several threads, seed " + seed
                    + " (PENSTOCK_HOSTCUDA_SEED=" + seed + " repeats the orders)");
        }
        return probe;
    }

    private static void call(String symbol, FunctionDescriptor d, Object... args) {
        MethodHandle h = Linker.nativeLinker().downcallHandle(SymbolLookup.libraryLookup(library(), Arena.global()).find(symbol).orElseThrow(), d);
        try {
            h.invokeWithArguments(args);
        } catch (Throwable e) {
            throw new IllegalStateException(symbol + ": " + e, e);
        }
    }

    /// What the emulation holds now.
    ///
    /// @param deviceAllocations device allocations not freed
    /// @param pinnedAllocations pinned host allocations not freed and registrations not undone
    /// @param streams           streams not destroyed
    /// @param events            events not destroyed
    /// @param launches          kernel launches so far
    /// @param hostFunctions     host functions enqueued so far
    /// @param pageableCopies    copies from or to pageable host memory so far
    record Counts(long deviceAllocations, long pinnedAllocations, long streams, long events, long launches, long hostFunctions,
                  long pageableCopies) {
    }

    /// Sets the compute capability and driver version the emulated devices report.
    static void setCapability(int major, int minor, int driverVersion) {
        call("penstock_hostcuda_set_capability", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                major, minor, driverVersion);
    }

    static Counts counts() {
        Path lib = library();
        MethodHandle h = Linker.nativeLinker().downcallHandle(SymbolLookup.libraryLookup(lib, Arena.global())
                .find("penstock_hostcuda_counts").orElseThrow(), FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ValueLayout.JAVA_LONG, 7);
            h.invokeExact(out);
            long[] c = out.toArray(ValueLayout.JAVA_LONG);
            return new Counts(c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
