package dev.penstock.cuda;

import dev.penstock.device.Device;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// One CUDA device (`cuda:N`) behind the engine's `Device` contract, on its primary context.
///
/// Device memory comes from `newArena` as `Block`s whose segments hold *device* addresses: the
/// host must never read them (`isHostMemory()` is false); streams copy between them and host
/// blocks (`Stream.copy` picks the direction by asking this device which addresses are its own).
/// Host memory for fast copies is pinned: back a `StagingPool` with `pinned()`.
///
/// Threading: thread-safe; every driver call is made after making the context current on the
/// calling thread.
public final class CudaDevice implements Device {
    private final CudaDriver driver;
    private final int ordinal;
    private final int device;
    private final MemorySegment context;
    private final String name;
    private final List<CudaStream> streams = new ArrayList<>();
    private final List<Arena> arenas = new ArrayList<>();
    private final Map<Long, Long> allocations = new ConcurrentHashMap<>(); // device address -> bytes
    private final Map<Long, MemorySegment> events = new ConcurrentHashMap<>(); // live CUevents by address
    private boolean closed;
    private MemorySegment clockEvent; // a completed event and the host time it was seen complete
    private long clockHostNanos;

    private CudaDevice(CudaDriver driver, int ordinal) {
        this.driver = driver;
        this.ordinal = ordinal;
        this.device = driver.deviceGet(ordinal);
        this.context = driver.primaryContext(device);
        driver.setCurrent(context);
        this.name = "cuda:" + ordinal + " (" + driver.deviceName(device) + ")";
    }

    /// The oldest compute capability the shipped PTX targets (`scripts/build-kernels.sh` builds it
    /// for `compute_75`; the driver compiles it forward for any newer GPU).
    static final int MIN_COMPUTE_CAPABILITY = 75;
    /// The oldest driver that reads the shipped PTX's ISA version (`.version 9.0`: CUDA 13).
    static final int MIN_DRIVER_VERSION = 13000;
    static final String PTX_ISA = "9.0";

    /// Device `ordinal`, or an `IllegalStateException` saying why CUDA cannot be used here (no
    /// driver, no such device, a GPU older than the kernels need, a driver too old for their PTX).
    public static CudaDevice open(int ordinal) {
        return open(CudaDriver.probe(), ordinal);
    }

    /// Device `ordinal` of the driver `p` found (tests open a host emulation of the driver).
    static CudaDevice open(CudaDriver.Probe p, int ordinal) {
        if (!p.usable()) {
            throw new IllegalStateException("cuda:" + ordinal + " is not available: " + p.reason());
        }
        if (ordinal < 0 || ordinal >= p.devices()) {
            throw new IllegalStateException("cuda:" + ordinal + " does not exist: the driver sees " + p.devices() + " device(s)");
        }
        CudaDriver driver = p.driver().orElseThrow();
        String why = unsupported(driver, ordinal);
        if (why != null) {
            throw new IllegalStateException(why);
        }
        return new CudaDevice(driver, ordinal);
    }

    /// Why GPU `ordinal` of a usable driver `p` cannot run Penstock's kernels (too old a GPU for
    /// the PTX's target, too old a driver for its ISA), or null when it can.
    public static String unsupported(CudaDriver.Probe p, int ordinal) {
        return p.driver().map(d -> unsupported(d, ordinal)).orElse(p.reason());
    }

    private static String unsupported(CudaDriver driver, int ordinal) {
        int device = driver.deviceGet(ordinal);
        int cc = driver.computeCapability(device);
        if (cc < MIN_COMPUTE_CAPABILITY) {
            return "cuda:" + ordinal + " (" + driver.deviceName(device) + ") has compute capability " + cc / 10 + "." + cc % 10
                    + "; Penstock's kernels need " + MIN_COMPUTE_CAPABILITY / 10 + "." + MIN_COMPUTE_CAPABILITY % 10
                    + " or newer (Turing, Ampere, Ada, Hopper, Blackwell): use --device cpu";
        }
        int version = driver.driverVersion();
        if (version < MIN_DRIVER_VERSION) {
            return "cuda:" + ordinal + ": the NVIDIA driver supports CUDA " + version / 1000 + "." + version % 1000 / 10
                    + "; Penstock's kernels are PTX " + PTX_ISA + ", which needs a driver for CUDA " + MIN_DRIVER_VERSION / 1000 + "."
                    + MIN_DRIVER_VERSION % 1000 / 10 + " or newer (R580+): update the driver, or use --device cpu";
        }
        return null;
    }

    /// Makes this device's context current on the calling thread (before driver calls).
    void enter() {
        driver.setCurrent(context);
    }

    CudaDriver driver() {
        return driver;
    }

    /// Destroys unreachable events' CUevents (a run records one per chunk or batch).
    private static final Cleaner EVENTS = Cleaner.create(r -> {
        Thread t = new Thread(r, "penstock-cuda-event-cleaner");
        t.setDaemon(true);
        return t;
    });

    /// A new event recorded on `stream`, its CUevent destroyed once the `CudaEvent` is
    /// unreachable, or when the device closes.
    CudaEvent newEvent(CudaStream stream, long sequence) {
        enter();
        MemorySegment e = driver.eventCreate();
        events.put(e.address(), e);
        driver.eventRecord(e, stream.handle());
        CudaEvent event = new CudaEvent(stream, e, sequence);
        long address = e.address();
        EVENTS.register(event, () -> destroyEvent(address));
        return event;
    }

    /// When `event` (completed) completed, on the `System.nanoTime()` clock: its GPU time
    /// relative to a reference event whose completion the host saw at a known time (renewed
    /// every 30 s, so the driver's float milliseconds stay within a microsecond).
    synchronized long hostNanos(MemorySegment event) {
        check();
        enter();
        if (clockEvent == null || System.nanoTime() - clockHostNanos > 30_000_000_000L) {
            MemorySegment e = driver.eventCreate();
            driver.eventRecord(e, MemorySegment.NULL);
            driver.eventSynchronize(e);
            long now = System.nanoTime();
            if (clockEvent != null) {
                driver.eventDestroy(clockEvent);
            }
            clockEvent = e;
            clockHostNanos = now;
        }
        return clockHostNanos + Math.round(driver.eventElapsedMillis(clockEvent, event) * 1e6);
    }

    private synchronized void destroyEvent(long address) {
        MemorySegment e = events.remove(address);
        if (e != null && !closed) {
            enter();
            driver.eventDestroy(e);
        }
    }

    /// Whether `segment` lies in memory this device allocated.
    boolean owns(MemorySegment segment) {
        long a = segment.address();
        for (Map.Entry<Long, Long> e : allocations.entrySet()) {
            if (a >= e.getKey() && a < e.getKey() + e.getValue()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String name() {
        return name;
    }

    /// The device's index.
    public int ordinal() {
        return ordinal;
    }

    @Override
    public synchronized Stream newStream(String streamName) {
        check();
        enter();
        CudaStream s = new CudaStream(this, streamName, driver.streamCreate());
        streams.add(s);
        return s;
    }

    @Override
    public synchronized BlockArena newArena(String arenaName) {
        check();
        Arena a = new Arena(arenaName);
        arenas.add(a);
        return a;
    }

    /// A `StagingPool.Backing` of page-locked host memory on this device's context.
    public PinnedBacking pinned() {
        return new PinnedBacking(this);
    }

    /// Page-locks `memory` (native host memory the caller owns) until the returned handle is
    /// closed, so that copies from and to it run at the bus's full speed without a staging
    /// copy: give it to the `TransferEngine` as `ChunkSource.direct(memory)`. Registering is
    /// slow (it touches every page): do it once for long-lived buffers.
    public AutoCloseable pin(MemorySegment memory) {
        if (!memory.isNative() || memory.byteSize() == 0) {
            throw new IllegalArgumentException("only non-empty native memory can be pinned, got " + memory);
        }
        check();
        enter();
        driver.memHostRegister(memory);
        return new AutoCloseable() {
            private boolean closed;

            @Override
            public synchronized void close() {
                if (!closed) {
                    closed = true;
                    enter();
                    driver.memHostUnregister(memory);
                }
            }
        };
    }

    /// Whether `close()` has run (its context released, and with it the pinned memory it made).
    synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public boolean isHostMemory() {
        return false;
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        enter();
        for (CudaStream s : streams) {
            s.destroy();
        }
        for (MemorySegment e : events.values()) {
            driver.eventDestroy(e);
        }
        events.clear();
        if (clockEvent != null) {
            driver.eventDestroy(clockEvent);
        }
        for (Arena a : arenas) {
            a.close();
        }
        driver.releasePrimaryContext(device);
    }

    /// Device memory: each block one `cuMemAlloc`, freed with the arena.
    /// Device memory of a `CudaDevice`.
    interface DeviceArena extends BlockArena {
        /// The device whose memory this is.
        CudaDevice device();
    }

    private final class Arena implements DeviceArena {
        private final String name;
        private final List<Long> pointers = new ArrayList<>();
        private long bytes;

        Arena(String name) {
            this.name = name;
        }

        @Override
        public CudaDevice device() {
            return CudaDevice.this;
        }

        @Override
        public synchronized Block allocate(DType dtype, long... shape) {
            long size = Math.multiplyExact(Block.elementCount(shape), (long) dtype.byteSize());
            enter();
            long p = driver.memAlloc(Math.max(1, size));
            pointers.add(p);
            allocations.put(p, Math.max(1, size));
            bytes += size;
            return Block.wrap(MemorySegment.ofAddress(p).reinterpret(size), dtype, this, shape);
        }

        @Override
        public synchronized long allocatedBytes() {
            return bytes;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public synchronized void close() {
            if (pointers.isEmpty()) {
                return;
            }
            enter();
            for (long p : pointers) {
                allocations.remove(p);
                driver.memFree(p);
            }
            pointers.clear();
            bytes = 0;
        }
    }
}
