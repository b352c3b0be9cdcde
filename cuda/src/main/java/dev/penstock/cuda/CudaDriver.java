package dev.penstock.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/// The CUDA driver API (`libcuda.so.1`) through `java.lang.foreign`: no JNI, no toolkit — the
/// driver alone. Versioned symbols are bound by their `_v2` names where the API has them.
///
/// The driver keeps a *current context per thread*: every call that needs one must come after
/// `cuCtxSetCurrent` on the same thread (`CudaContext.enter()` does it); platform threads only,
/// since a virtual thread may move between carriers between two calls.
///
/// Errors: every call is checked; a failure raises `CudaException` with the call's name, the
/// error's name (`cuGetErrorName`) and its number. `probe()` never throws: it says why CUDA is
/// not usable (no library, no device, a driver error).
public final class CudaDriver {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final java.lang.foreign.AddressLayout PTR = ValueLayout.ADDRESS;

    /// The library's name, or the path in `PENSTOCK_CUDA_DRIVER` when set.
    public static final String LIBRARY = "libcuda.so.1";

    private final SymbolLookup lookup;
    private final Map<String, MethodHandle> handles = new HashMap<>();

    private CudaDriver(SymbolLookup lookup) {
        this.lookup = lookup;
    }

    /// Whether CUDA can be used here, and if not, why.
    ///
    /// @param driver  the driver, initialised, when usable
    /// @param devices devices it sees (0 when not usable)
    /// @param reason  why not (null when usable)
    public record Probe(Optional<CudaDriver> driver, int devices, String reason) {
        /// Whether a driver and at least one device were found.
        public boolean usable() {
            return driver.isPresent() && devices > 0;
        }
    }

    private static Probe probe;

    /// Loads the driver and counts the devices, once per JVM; never throws.
    public static synchronized Probe probe() {
        if (probe == null) {
            probe = doProbe();
        }
        return probe;
    }

    private static Probe doProbe() {
        String lib = System.getenv().getOrDefault("PENSTOCK_CUDA_DRIVER", LIBRARY);
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(lib, Arena.global());
        } catch (IllegalArgumentException e) {
            return new Probe(Optional.empty(), 0, "no CUDA driver: " + lib + " could not be loaded (install the NVIDIA driver, or set "
                    + "PENSTOCK_CUDA_DRIVER to its path)");
        }
        CudaDriver d = new CudaDriver(lookup);
        try {
            d.check("cuInit", (int) d.handle("cuInit", FunctionDescriptor.of(INT, INT)).invokeExact(0));
            try (Arena a = Arena.ofConfined()) {
                MemorySegment count = a.allocate(INT);
                d.check("cuDeviceGetCount", (int) d.handle("cuDeviceGetCount", FunctionDescriptor.of(INT, PTR)).invokeExact(count));
                int n = count.get(INT, 0);
                return new Probe(Optional.of(d), n, n == 0 ? "the CUDA driver sees no device" : null);
            }
        } catch (CudaException e) {
            return new Probe(Optional.empty(), 0, "the CUDA driver failed: " + e.getMessage());
        } catch (Throwable e) {
            return new Probe(Optional.empty(), 0, "the CUDA driver could not be called: " + e);
        }
    }

    /// The downcall handle of `symbol`, bound once.
    MethodHandle handle(String symbol, FunctionDescriptor descriptor) {
        synchronized (handles) {
            return handles.computeIfAbsent(symbol, s -> LINKER.downcallHandle(lookup.find(s).orElseThrow(
                    () -> new CudaException(s, -1, "symbol " + s + " not found in the CUDA driver (too old a driver?)")), descriptor));
        }
    }

    /// Raises `CudaException` for a non-zero result of `call`.
    void check(String call, int result) {
        if (result != 0) {
            throw new CudaException(call, result, call + " failed: " + errorName(result) + " (" + result + ")");
        }
    }

    private String errorName(int result) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment name = a.allocate(PTR);
            int r = (int) handle("cuGetErrorName", FunctionDescriptor.of(INT, INT, PTR)).invokeExact(result, name);
            if (r != 0) {
                return "CUDA error";
            }
            return name.get(PTR, 0).reinterpret(256).getString(0);
        } catch (Throwable e) {
            return "CUDA error";
        }
    }

    // ---- calls used by the device; each checked, named as in the driver API --------------

    int deviceGet(int ordinal) {
        return out(INT, "cuDeviceGet", FunctionDescriptor.of(INT, PTR, INT), ordinal).get(INT, 0);
    }

    String deviceName(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment name = a.allocate(256);
            check("cuDeviceGetName", (int) handle("cuDeviceGetName", FunctionDescriptor.of(INT, PTR, INT, INT)).invokeExact(name, 256, device));
            return name.getString(0);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new CudaException("cuDeviceGetName", -1, e.toString());
        }
    }

    MemorySegment primaryContext(int device) {
        return outPointer("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(INT, PTR, INT), device);
    }

    void releasePrimaryContext(int device) {
        call("cuDevicePrimaryCtxRelease_v2", FunctionDescriptor.of(INT, INT), device);
    }

    void setCurrent(MemorySegment context) {
        call("cuCtxSetCurrent", FunctionDescriptor.of(INT, PTR), context);
    }

    long memAlloc(long bytes) {
        return out(LONG, "cuMemAlloc_v2", FunctionDescriptor.of(INT, PTR, LONG), bytes).get(LONG, 0);
    }

    void memFree(long pointer) {
        call("cuMemFree_v2", FunctionDescriptor.of(INT, LONG), pointer);
    }

    /// Page-locked host memory the device reads at full speed (`CU_MEMHOSTALLOC_PORTABLE`).
    MemorySegment memHostAlloc(long bytes) {
        MemorySegment p = outPointer("cuMemHostAlloc", FunctionDescriptor.of(INT, PTR, LONG, INT), bytes, 1);
        return p.reinterpret(bytes);
    }

    void memFreeHost(MemorySegment p) {
        call("cuMemFreeHost", FunctionDescriptor.of(INT, PTR), p);
    }

    void copyHtoD(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        call("cuMemcpyHtoDAsync_v2", FunctionDescriptor.of(INT, LONG, PTR, LONG, PTR), dst, src, bytes, stream);
    }

    void copyDtoH(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        call("cuMemcpyDtoHAsync_v2", FunctionDescriptor.of(INT, PTR, LONG, LONG, PTR), dst, src, bytes, stream);
    }

    void copyDtoD(long dst, long src, long bytes, MemorySegment stream) {
        call("cuMemcpyDtoDAsync_v2", FunctionDescriptor.of(INT, LONG, LONG, LONG, PTR), dst, src, bytes, stream);
    }

    MemorySegment streamCreate() {
        return outPointer("cuStreamCreate", FunctionDescriptor.of(INT, PTR, INT), 1); // CU_STREAM_NON_BLOCKING
    }

    void streamDestroy(MemorySegment stream) {
        call("cuStreamDestroy_v2", FunctionDescriptor.of(INT, PTR), stream);
    }

    void streamSynchronize(MemorySegment stream) {
        call("cuStreamSynchronize", FunctionDescriptor.of(INT, PTR), stream);
    }

    void streamWaitEvent(MemorySegment stream, MemorySegment event) {
        call("cuStreamWaitEvent", FunctionDescriptor.of(INT, PTR, PTR, INT), stream, event, 0);
    }

    MemorySegment eventCreate() {
        return outPointer("cuEventCreate", FunctionDescriptor.of(INT, PTR, INT), 0);
    }

    void eventRecord(MemorySegment event, MemorySegment stream) {
        call("cuEventRecord", FunctionDescriptor.of(INT, PTR, PTR), event, stream);
    }

    void eventSynchronize(MemorySegment event) {
        call("cuEventSynchronize", FunctionDescriptor.of(INT, PTR), event);
    }

    /// Whether the event has completed (`CUDA_ERROR_NOT_READY` = 600 means not yet).
    boolean eventQuery(MemorySegment event) {
        try {
            int r = (int) handle("cuEventQuery", FunctionDescriptor.of(INT, PTR)).invokeExact(event);
            if (r == 600) {
                return false;
            }
            check("cuEventQuery", r);
            return true;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new CudaException("cuEventQuery", -1, e.toString());
        }
    }

    void eventDestroy(MemorySegment event) {
        call("cuEventDestroy_v2", FunctionDescriptor.of(INT, PTR), event);
    }

    MemorySegment moduleLoadData(MemorySegment image) {
        return outPointer("cuModuleLoadData", FunctionDescriptor.of(INT, PTR, PTR), image);
    }

    MemorySegment moduleGetFunction(MemorySegment module, String name) {
        try (Arena a = Arena.ofConfined()) {
            return outPointer("cuModuleGetFunction", FunctionDescriptor.of(INT, PTR, PTR, PTR), module, a.allocateFrom(name));
        }
    }

    void launchKernel(MemorySegment function, int gridX, int gridY, int blockX, int sharedBytes, MemorySegment stream,
                      MemorySegment params) {
        call("cuLaunchKernel", FunctionDescriptor.of(INT, PTR, INT, INT, INT, INT, INT, INT, INT, PTR, PTR, PTR), function, gridX, gridY, 1,
                blockX, 1, 1, sharedBytes, stream, params, MemorySegment.NULL);
    }

    /// Enqueues a host function (an upcall stub `void fn(void*)`) on `stream`.
    void launchHostFunc(MemorySegment stream, MemorySegment function, MemorySegment userData) {
        call("cuLaunchHostFunc", FunctionDescriptor.of(INT, PTR, PTR, PTR), stream, function, userData);
    }

    /// The layout of a `void fn(void*)` host function, for upcall stubs.
    static FunctionDescriptor hostFunction() {
        return FunctionDescriptor.ofVoid(PTR);
    }

    /// Calls `symbol` with `args` (boxed), checking its result.
    private void call(String symbol, FunctionDescriptor d, Object... args) {
        try {
            check(symbol, (int) handle(symbol, d).invokeWithArguments(args));
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new CudaException(symbol, -1, e.toString());
        }
    }

    /// Calls `symbol(out, args…)` and returns the pointer it wrote to `out`.
    private MemorySegment outPointer(String symbol, FunctionDescriptor d, Object... args) {
        return out(PTR, symbol, d, args).get(PTR, 0);
    }

    /// Calls `symbol(out, args…)` with `out` one `layout` value; returns a copy of it (heap).
    private MemorySegment out(java.lang.foreign.MemoryLayout layout, String symbol, FunctionDescriptor d, Object... args) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(layout);
            Object[] all = new Object[args.length + 1];
            all[0] = out;
            System.arraycopy(args, 0, all, 1, args.length);
            check(symbol, (int) handle(symbol, d).invokeWithArguments(all));
            MemorySegment copy = Arena.ofAuto().allocate(layout);
            copy.copyFrom(out);
            return copy;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new CudaException(symbol, -1, e.toString());
        }
    }
}
