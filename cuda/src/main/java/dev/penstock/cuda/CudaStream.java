package dev.penstock.cuda;

import dev.penstock.device.Device;
import dev.penstock.device.DeviceException;
import dev.penstock.device.Event;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/// A CUDA stream. Copies and kernels are enqueued on the GPU; `launch(op)` runs Java on the
/// driver's host-callback thread in stream order (`cuLaunchHostFunc`; such an op must not call
/// CUDA). A failing host op makes the stream sticky-failed: later host ops are skipped and the
/// failure is raised, naming the op, by `synchronize()` or by `await()` of an event recorded
/// after it. (GPU work already enqueued still runs; its results are not to be trusted then.)
///
/// `waitFor` is `cuStreamWaitEvent` alone — no host code runs in the stream for it (a host
/// function stalls a stream for microseconds). A failure reaches the waiting stream when it
/// happens instead: the failing stream tells the streams that wait for one of its events
/// recorded after the failed op (and a wait registered after a failure sees it at once), so
/// the waiting stream fails from the position of its wait on.
public final class CudaStream implements Stream {
    private static final Map<Long, Runnable> HOST_OPS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT_OP = new AtomicLong(1);
    private static final MemorySegment HOST_FN;

    static {
        try {
            HOST_FN = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(CudaStream.class, "runHostOp",
                    MethodType.methodType(void.class, MemorySegment.class)), CudaDriver.hostFunction(), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final CudaDevice device;
    private final String name;
    private final MemorySegment handle;
    private final AtomicLong enqueued = new AtomicLong();
    private final java.util.Set<Thread> running = ConcurrentHashMap.newKeySet();
    private final java.util.Set<CudaStream> downstreams = ConcurrentHashMap.newKeySet(); // streams that waited for ours
    private final java.util.ArrayDeque<Upstream> upstreams = new java.util.ArrayDeque<>(); // guarded by this
    private volatile Failure failure; // the sticky failure and the position of the op that raised it
    private volatile boolean destroyed;

    /// A wait of this stream (at its position `since`) for `event` of `stream`.
    private record Upstream(CudaStream stream, CudaEvent event, long since) {
    }

    private record Failure(DeviceException error, long at) {
    }

    CudaStream(CudaDevice device, String name, MemorySegment handle) {
        this.device = device;
        this.name = name;
        this.handle = handle;
    }

    /// Called by the driver's host-callback thread: runs the op registered under `key`.
    private static void runHostOp(MemorySegment key) {
        try {
            Runnable r = HOST_OPS.remove(key.address());
            if (r != null) {
                r.run();
            }
        } catch (Throwable e) {
            // an exception leaving an upcall ends the JVM; the op's own failure is recorded inside
            System.err.println("penstock: a CUDA host function failed outside its op: " + e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Device device() {
        return device;
    }

    MemorySegment handle() {
        return handle;
    }

    @Override
    public void launch(String opName, Op op) {
        long seq = enqueued.incrementAndGet();
        long key = NEXT_OP.getAndIncrement();
        HOST_OPS.put(key, () -> {
            if (failureBefore(seq) != null || destroyed) {
                return; // skipped: an earlier op on this stream (or one it waited for) failed, or the device closed
            }
            running.add(Thread.currentThread());
            try {
                op.run();
            } catch (Throwable e) {
                fail(new DeviceException(opName, "stream '" + name + "': " + opName + " failed: " + e, e), seq);
            } finally {
                running.remove(Thread.currentThread());
                Thread.interrupted(); // the driver's thread must not keep an interrupt meant for this op
            }
        });
        try {
            device.enter();
            device.driver().launchHostFunc(handle, HOST_FN, MemorySegment.ofAddress(key));
        } catch (RuntimeException e) {
            HOST_OPS.remove(key); // never enqueued
            throw e;
        }
    }

    @Override
    public void copy(Block src, Block dst) {
        if (src.byteSize() != dst.byteSize() || src.dtype() != dst.dtype()) {
            throw new IllegalArgumentException("copy " + src + " -> " + dst + ": dtype and size must match");
        }
        for (Block b : new Block[] {src, dst}) {
            if (b.owner() instanceof CudaDevice.DeviceArena a && a.device() != device) {
                throw new IllegalArgumentException("stream '" + name + "' of " + device.name() + " cannot copy memory of "
                        + a.device().name() + " (" + b + "): copy through host memory");
            }
        }
        boolean fromDevice = device.owns(src.segment());
        boolean toDevice = device.owns(dst.segment());
        long bytes = src.byteSize();
        enqueued.incrementAndGet();
        device.enter();
        if (!fromDevice && !toDevice) {
            Stream.super.copy(src, dst); // host to host, in stream order
        } else if (toDevice && !fromDevice) {
            requireNative(src);
            device.driver().copyHtoD(dst.segment().address(), src.segment(), bytes, handle);
        } else if (fromDevice && !toDevice) {
            requireNative(dst);
            device.driver().copyDtoH(dst.segment(), src.segment().address(), bytes, handle);
        } else {
            device.driver().copyDtoD(dst.segment().address(), src.segment().address(), bytes, handle);
        }
    }

    private static void requireNative(Block b) {
        if (!b.segment().isNative()) {
            throw new IllegalArgumentException("an asynchronous copy needs native host memory (pinned for full speed), got a heap block " + b);
        }
    }

    /// Enqueues `function` with `args` (each an `Integer`, `Long`, `Double`, `Float` or a
    /// device `Block`, passed as its address), on a `gridX × gridY` grid of `blockX`-thread blocks.
    /// Each argument's size must be the size its kernel's PTX declares for it (Integer and
    /// Float 4 bytes; Long, Double and Block addresses 8), else an `IllegalArgumentException`
    /// naming the kernel and parameter — before anything reaches the GPU.
    public void launchKernel(CudaFunction function, int gridX, int gridY, int blockX, int sharedBytes, Object... args) {
        checkArguments(function, args);
        enqueued.incrementAndGet();
        device.enter();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment params = a.allocate(ValueLayout.ADDRESS, args.length);
            for (int i = 0; i < args.length; i++) {
                MemorySegment v = switch (args[i]) {
                    case Integer x -> a.allocateFrom(ValueLayout.JAVA_INT, x);
                    case Long x -> a.allocateFrom(ValueLayout.JAVA_LONG, x);
                    case Double x -> a.allocateFrom(ValueLayout.JAVA_DOUBLE, x);
                    case Float x -> a.allocateFrom(ValueLayout.JAVA_FLOAT, x);
                    case Block b -> a.allocateFrom(ValueLayout.JAVA_LONG, b.segment().address());
                    default -> throw new IllegalArgumentException("kernel " + function.name() + ": argument " + i + " of type "
                            + args[i].getClass().getSimpleName() + " is not supported");
                };
                params.setAtIndex(ValueLayout.ADDRESS, i, v);
            }
            device.driver().launchKernel(function.handle(), gridX, gridY, blockX, sharedBytes, handle, params);
        }
    }

    private static void checkArguments(CudaFunction function, Object[] args) {
        if (args.length != function.paramSizes().size()) {
            throw new IllegalArgumentException("kernel " + function.name() + " takes " + function.paramSizes().size() + " parameters, got "
                    + args.length);
        }
        for (int i = 0; i < args.length; i++) {
            int size = switch (args[i]) {
                case Integer x -> 4;
                case Float x -> 4;
                case Long x -> 8;
                case Double x -> 8;
                case Block b -> 8;
                default -> -1;
            };
            if (size != function.paramSizes().get(i)) {
                throw new IllegalArgumentException("kernel " + function.name() + ": parameter " + i + " is " + function.paramSizes().get(i)
                        + " bytes in its PTX, got a " + args[i].getClass().getSimpleName() + " (" + size + " bytes)");
            }
        }
    }

    @Override
    public Event record() {
        return device.newEvent(this, enqueued.get());
    }

    @Override
    public void waitFor(Event event) {
        if (!(event instanceof CudaEvent ce) || ce.stream().device() != device) {
            throw new IllegalArgumentException("stream '" + name + "' can only wait for events of " + device.name());
        }
        CudaStream other = (CudaStream) ce.stream();
        device.enter();
        device.driver().streamWaitEvent(handle, ce.handle());
        long since = enqueued.incrementAndGet();
        other.downstreams.add(this);
        Upstream wait = new Upstream(other, ce, since);
        synchronized (this) {
            upstreams.add(wait);
        }
        pruneUpstreams();
        DeviceException f = other.failureBefore(ce.sequence()); // failed already: fail from here on
        if (f != null) {
            synchronized (this) {
                upstreams.remove(wait);
            }
            fail(waitedFor(other, f), since);
        }
    }

    /// Forgets the oldest waits whose events completed with no failure before them: those can
    /// fail no more (a few per call; the driver is asked about the oldest only).
    private void pruneUpstreams() {
        for (int i = 0; i < 4; i++) {
            Upstream u;
            synchronized (this) {
                u = upstreams.peekFirst();
            }
            if (u == null || !u.event().isDone() || u.stream().failureBefore(u.event().sequence()) != null) {
                return;
            }
            synchronized (this) {
                upstreams.remove(u);
            }
        }
    }

    private DeviceException waitedFor(CudaStream upstream, DeviceException e) {
        return new DeviceException(e.operation(), "stream '" + name + "' waited for stream '" + upstream.name + "', which failed: "
                + e.getMessage(), e);
    }

    /// Records `e` (raised at position `at`) unless an earlier failure stands, and fails the
    /// streams that wait for an event of this one recorded at or after `at`.
    private void fail(DeviceException e, long at) {
        synchronized (this) {
            Failure f = failure;
            if (f != null && f.at() <= at) {
                return;
            }
            failure = new Failure(e, at);
        }
        for (CudaStream d : downstreams) {
            d.upstreamFailed(this, e, at);
        }
    }

    /// `upstream` failed at its position `at` with `e`: this stream fails from the first of its
    /// waits for an event of `upstream` recorded at or after `at`.
    private void upstreamFailed(CudaStream upstream, DeviceException e, long at) {
        long since = Long.MAX_VALUE;
        synchronized (this) {
            for (java.util.Iterator<Upstream> it = upstreams.iterator(); it.hasNext();) {
                Upstream u = it.next();
                if (u.stream() == upstream && u.event().sequence() >= at) {
                    since = Math.min(since, u.since());
                    it.remove();
                }
            }
        }
        if (since != Long.MAX_VALUE) {
            fail(waitedFor(upstream, e), since);
        }
    }

    @Override
    public void synchronize() {
        if (destroyed) {
            throw new DeviceException("synchronize", "stream '" + name + "': " + device.name() + " is closed", null);
        }
        device.enter();
        device.driver().streamSynchronize(handle);
        Failure f;
        synchronized (this) {
            upstreams.clear(); // every event waited for has completed; failures were passed on when they happened
            f = failure;
            failure = null;
        }
        if (f != null) {
            throw f.error();
        }
    }

    /// The failure an event recorded at `sequence` must report, if any.
    DeviceException failureBefore(long sequence) {
        Failure f = failure;
        return f != null && f.at() <= sequence ? f.error() : null;
    }

    /// Whether the device was closed (events of this stream then fail their `await`).
    boolean destroyed() {
        return destroyed;
    }

    /// Stops the stream: queued host ops are skipped, running ones interrupted; the driver
    /// releases the stream once its GPU work is done.
    void destroy() {
        destroyed = true;
        for (Thread t : running) {
            t.interrupt();
        }
        device.driver().streamDestroy(handle);
    }
}
