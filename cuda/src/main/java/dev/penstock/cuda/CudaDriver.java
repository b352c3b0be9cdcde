package dev.penstock.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

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

    /// Every driver function Penstock calls, by its exported (versioned) name, with its
    /// signature: CUresult is `int`; CUdevice, int and unsigned int are `int`; size_t and
    /// CUdeviceptr are `long`; handles (CUcontext, CUstream, …), pointers and CUhostFn are
    /// addresses. `CudaSignatureTest` compiles these against the toolkit's `cuda.h`.
    static final Map<String, FunctionDescriptor> SIGNATURES = signatures();

    private static Map<String, FunctionDescriptor> signatures() {
        Map<String, FunctionDescriptor> m = new LinkedHashMap<>();
        m.put("cuInit", FunctionDescriptor.of(INT, INT));
        m.put("cuGetErrorName", FunctionDescriptor.of(INT, INT, PTR));
        m.put("cuDeviceGetCount", FunctionDescriptor.of(INT, PTR));
        m.put("cuDeviceGet", FunctionDescriptor.of(INT, PTR, INT));
        m.put("cuDeviceGetName", FunctionDescriptor.of(INT, PTR, INT, INT));
        m.put("cuDeviceGetAttribute", FunctionDescriptor.of(INT, PTR, INT, INT));
        m.put("cuDriverGetVersion", FunctionDescriptor.of(INT, PTR));
        m.put("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(INT, PTR, INT));
        m.put("cuDevicePrimaryCtxRelease_v2", FunctionDescriptor.of(INT, INT));
        m.put("cuCtxSetCurrent", FunctionDescriptor.of(INT, PTR));
        m.put("cuMemAlloc_v2", FunctionDescriptor.of(INT, PTR, LONG));
        m.put("cuMemFree_v2", FunctionDescriptor.of(INT, LONG));
        m.put("cuMemHostAlloc", FunctionDescriptor.of(INT, PTR, LONG, INT));
        m.put("cuMemFreeHost", FunctionDescriptor.of(INT, PTR));
        m.put("cuMemHostRegister_v2", FunctionDescriptor.of(INT, PTR, LONG, INT));
        m.put("cuMemHostUnregister", FunctionDescriptor.of(INT, PTR));
        m.put("cuMemcpyHtoDAsync_v2", FunctionDescriptor.of(INT, LONG, PTR, LONG, PTR));
        m.put("cuMemcpyDtoHAsync_v2", FunctionDescriptor.of(INT, PTR, LONG, LONG, PTR));
        m.put("cuMemcpyDtoDAsync_v2", FunctionDescriptor.of(INT, LONG, LONG, LONG, PTR));
        m.put("cuStreamCreate", FunctionDescriptor.of(INT, PTR, INT));
        m.put("cuStreamDestroy_v2", FunctionDescriptor.of(INT, PTR));
        m.put("cuStreamSynchronize", FunctionDescriptor.of(INT, PTR));
        m.put("cuStreamWaitEvent", FunctionDescriptor.of(INT, PTR, PTR, INT));
        m.put("cuEventCreate", FunctionDescriptor.of(INT, PTR, INT));
        m.put("cuEventRecord", FunctionDescriptor.of(INT, PTR, PTR));
        m.put("cuEventQuery", FunctionDescriptor.of(INT, PTR));
        m.put("cuEventSynchronize", FunctionDescriptor.of(INT, PTR));
        m.put("cuEventDestroy_v2", FunctionDescriptor.of(INT, PTR));
        m.put("cuEventElapsedTime_v2", FunctionDescriptor.of(INT, PTR, PTR, PTR));
        m.put("cuModuleLoadData", FunctionDescriptor.of(INT, PTR, PTR));
        m.put("cuModuleGetFunction", FunctionDescriptor.of(INT, PTR, PTR, PTR));
        m.put("cuLaunchKernel", FunctionDescriptor.of(INT, PTR, INT, INT, INT, INT, INT, INT, INT, PTR, PTR, PTR));
        m.put("cuLaunchHostFunc", FunctionDescriptor.of(INT, PTR, PTR, PTR));
        return java.util.Collections.unmodifiableMap(m);
    }

    private final SymbolLookup lookup;
    private final String library;
    private final Map<String, MethodHandle> handles = new ConcurrentHashMap<>();

    private CudaDriver(SymbolLookup lookup, String library) {
        this.lookup = lookup;
        this.library = library;
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
        return load(System.getenv().getOrDefault("PENSTOCK_CUDA_DRIVER", LIBRARY));
    }

    /// Loads the driver library `lib` (a name or a path) and counts its devices; never throws.
    /// `probe()` does it once for the system's driver; tests load a host emulation with it.
    static Probe load(String lib) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(lib, Arena.global());
        } catch (IllegalArgumentException e) {
            return new Probe(Optional.empty(), 0, "no CUDA driver: " + lib + " could not be loaded (install the NVIDIA driver, or set "
                    + "PENSTOCK_CUDA_DRIVER to its path)");
        }
        CudaDriver d = new CudaDriver(lookup, lib);
        try {
            d.check("cuInit", (int) d.handle("cuInit").invokeExact(0));
            try (Arena a = Arena.ofConfined()) {
                MemorySegment count = a.allocate(INT);
                d.check("cuDeviceGetCount", (int) d.handle("cuDeviceGetCount").invokeExact(count));
                int n = count.get(INT, 0);
                return new Probe(Optional.of(d), n, n == 0 ? "the CUDA driver sees no device" : null);
            }
        } catch (CudaException e) {
            return new Probe(Optional.empty(), 0, "the CUDA driver failed: " + e.getMessage());
        } catch (Throwable e) {
            return new Probe(Optional.empty(), 0, "the CUDA driver could not be called: " + e);
        }
    }

    /// The library this driver was loaded from.
    String library() {
        return library;
    }

    /// The downcall handle of `symbol` (one of `SIGNATURES`), bound once.
    MethodHandle handle(String symbol) {
        return handles.computeIfAbsent(symbol, s -> {
            FunctionDescriptor d = SIGNATURES.get(s);
            if (d == null) {
                throw new IllegalArgumentException(s + " is not in CudaDriver.SIGNATURES");
            }
            return LINKER.downcallHandle(lookup.find(s).orElseThrow(
                    () -> new CudaException(s, -1, "symbol " + s + " not found in " + library + " (too old a driver?)")), d);
        });
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
            int r = (int) handle("cuGetErrorName").invokeExact(result, name);
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
        return out(INT, "cuDeviceGet", ordinal).get(INT, 0);
    }

    String deviceName(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment name = a.allocate(256);
            exact("cuDeviceGetName", h -> (int) h.invokeExact(name, 256, device));
            return name.getString(0);
        }
    }

    /// The device's compute capability as `major * 10 + minor` (8.0 → 80, 9.0 → 90).
    int computeCapability(int device) {
        int major = out(INT, "cuDeviceGetAttribute", 75, device).get(INT, 0); // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        int minor = out(INT, "cuDeviceGetAttribute", 76, device).get(INT, 0); // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
        return major * 10 + minor;
    }

    /// The CUDA version the driver supports, as `1000 * major + 10 * minor` (13.0 → 13000).
    int driverVersion() {
        return out(INT, "cuDriverGetVersion").get(INT, 0);
    }

    MemorySegment primaryContext(int device) {
        return outPointer("cuDevicePrimaryCtxRetain", device);
    }

    void releasePrimaryContext(int device) {
        call("cuDevicePrimaryCtxRelease_v2", device);
    }

    void setCurrent(MemorySegment context) {
        exact("cuCtxSetCurrent", h -> (int) h.invokeExact(context));
    }

    long memAlloc(long bytes) {
        return out(LONG, "cuMemAlloc_v2", bytes).get(LONG, 0);
    }

    void memFree(long pointer) {
        call("cuMemFree_v2", pointer);
    }

    /// Page-locked host memory the device reads at full speed (`CU_MEMHOSTALLOC_PORTABLE`), as a
    /// segment of `owner`'s scope: closing `owner` makes every touch throw, so close it before
    /// `memFreeHost` and no stale view can write freed memory.
    MemorySegment memHostAlloc(long bytes, java.lang.foreign.Arena owner) {
        MemorySegment p = outPointer("cuMemHostAlloc", bytes, 1);
        return p.reinterpret(bytes, owner, null);
    }

    /// Page-locks existing host memory for the device (`CU_MEMHOSTREGISTER_PORTABLE`).
    void memHostRegister(MemorySegment p) {
        call("cuMemHostRegister_v2", p, p.byteSize(), 1);
    }

    void memHostUnregister(MemorySegment p) {
        call("cuMemHostUnregister", p);
    }

    /// Frees pinned memory by its address (its segment's scope is already closed).
    void memFreeHost(long address) {
        call("cuMemFreeHost", MemorySegment.ofAddress(address));
    }

    void copyHtoD(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        exact("cuMemcpyHtoDAsync_v2", h -> (int) h.invokeExact(dst, src, bytes, stream));
    }

    void copyDtoH(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        exact("cuMemcpyDtoHAsync_v2", h -> (int) h.invokeExact(dst, src, bytes, stream));
    }

    void copyDtoD(long dst, long src, long bytes, MemorySegment stream) {
        exact("cuMemcpyDtoDAsync_v2", h -> (int) h.invokeExact(dst, src, bytes, stream));
    }

    MemorySegment streamCreate() {
        return outPointer("cuStreamCreate", 1); // CU_STREAM_NON_BLOCKING
    }

    void streamDestroy(MemorySegment stream) {
        call("cuStreamDestroy_v2", stream);
    }

    void streamSynchronize(MemorySegment stream) {
        call("cuStreamSynchronize", stream);
    }

    void streamWaitEvent(MemorySegment stream, MemorySegment event) {
        call("cuStreamWaitEvent", stream, event, 0);
    }

    MemorySegment eventCreate() {
        return outPointer("cuEventCreate", 0);
    }

    void eventRecord(MemorySegment event, MemorySegment stream) {
        call("cuEventRecord", event, stream);
    }

    void eventSynchronize(MemorySegment event) {
        call("cuEventSynchronize", event);
    }

    /// Whether the event has completed (`CUDA_ERROR_NOT_READY` = 600 means not yet).
    boolean eventQuery(MemorySegment event) {
        try {
            int r = (int) handle("cuEventQuery").invokeExact(event);
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

    /// Milliseconds from `start` to `end` (both completed, timing enabled), ±0.5 µs.
    float eventElapsedMillis(MemorySegment start, MemorySegment end) {
        return out(ValueLayout.JAVA_FLOAT, "cuEventElapsedTime_v2", start, end).get(ValueLayout.JAVA_FLOAT, 0);
    }

    void eventDestroy(MemorySegment event) {
        call("cuEventDestroy_v2", event);
    }

    MemorySegment moduleLoadData(MemorySegment image) {
        return outPointer("cuModuleLoadData", image);
    }

    MemorySegment moduleGetFunction(MemorySegment module, String name) {
        try (Arena a = Arena.ofConfined()) {
            return outPointer("cuModuleGetFunction", module, a.allocateFrom(name));
        }
    }

    void launchKernel(MemorySegment function, int gridX, int gridY, int blockX, int sharedBytes, MemorySegment stream,
                      MemorySegment params) {
        exact("cuLaunchKernel", h -> (int) h.invokeExact(function, gridX, gridY, 1, blockX, 1, 1, sharedBytes, stream,
                    params, MemorySegment.NULL));
    }

    /// Enqueues a host function (an upcall stub `void fn(void*)`) on `stream`.
    void launchHostFunc(MemorySegment stream, MemorySegment function, MemorySegment userData) {
        exact("cuLaunchHostFunc", h -> (int) h.invokeExact(stream, function, userData));
    }

    /// The layout of a `void fn(void*)` host function, for upcall stubs.
    static FunctionDescriptor hostFunction() {
        return FunctionDescriptor.ofVoid(PTR);
    }

    /// A call of a bound handle, for `exact`.
    @FunctionalInterface
    private interface Call {
        int invoke(MethodHandle handle) throws Throwable;
    }

    /// Calls `symbol` through `call` (an exact, unboxed invocation), checking its result.
    private void exact(String symbol, Call call) {
        try {
            check(symbol, call.invoke(handle(symbol)));
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new CudaException(symbol, -1, e.toString());
        }
    }

    /// Calls `symbol` with `args` (boxed), checking its result.
    private void call(String symbol, Object... args) {
        try {
            check(symbol, (int) handle(symbol).invokeWithArguments(args));
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new CudaException(symbol, -1, e.toString());
        }
    }

    /// Calls `symbol(out, args…)` and returns the pointer it wrote to `out`.
    private MemorySegment outPointer(String symbol, Object... args) {
        return out(PTR, symbol, args).get(PTR, 0);
    }

    /// Calls `symbol(out, args…)` with `out` one `layout` value; returns a copy of it (heap).
    private MemorySegment out(java.lang.foreign.MemoryLayout layout, String symbol, Object... args) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(layout);
            Object[] all = new Object[args.length + 1];
            all[0] = out;
            System.arraycopy(args, 0, all, 1, args.length);
            check(symbol, (int) handle(symbol).invokeWithArguments(all));
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
