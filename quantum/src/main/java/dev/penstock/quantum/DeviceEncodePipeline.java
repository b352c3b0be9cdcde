package dev.penstock.quantum;

import dev.penstock.device.Device;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.Lease;
import dev.penstock.memory.StagingPool;
import dev.penstock.pump.Pump;
import dev.penstock.transfer.TransferConfig;
import dev.penstock.transfer.TransferEngine;
import dev.penstock.transfer.TransferException;
import dev.penstock.transfer.TransferStats;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/// `EncodePipeline` with the encoding on a device whose memory the host cannot read (a GPU):
///
/// ```
///  I/O threads      read chunk k rows → host buffer
///  host thread      host buffer → staging; check every row (Rules): SKIP moves the good rows
///                   together, FAIL cuts the chunk at the first bad row
///  copy stream      staging → device rows
///  compute stream   DeviceEncoder: rows → device states; states → host buffer (output pool);
///                   then hands the buffer to the writer (and, under FAIL, raises the bad row)
///  writer thread    states → sink, in order
/// ```
///
/// Same results and errors as `EncodePipeline.run`: the rows before a fail-fast bad row are
/// written; skipped rows are listed. `hostMemory` backs the staging and output buffers (pinned
/// memory for a GPU; null: plain native memory).
public final class DeviceEncodePipeline {
    private DeviceEncodePipeline() {
    }

    /// Runs the encoding of `source` into `sink` on `device` with `kernel`.
    public static EncodeSummary run(Device device, DeviceEncoder kernel, StagingPool.Backing hostMemory, RowSource source, RowSink sink,
                                    EncodePipeline.Config config) throws Exception {
        return run(device, kernel, hostMemory, source, sink, config, null);
    }

    /// As `run`, recording every read, copy, kernel (copy and kernel times from the device's
    /// events) and write on `timeline` (may be null).
    public static EncodeSummary run(Device device, DeviceEncoder kernel, StagingPool.Backing hostMemory, RowSource source, RowSink sink,
                                    EncodePipeline.Config config, dev.penstock.observe.Timeline timeline) throws Exception {
        Encoder shape = Encoder.of(config.encoding(), config.qubits());
        int len = source.rowLength();
        long rows = source.rows();
        int chunkRows = config.rowsPerChunk();
        DType inType = source.dtype();
        long rowBytesIn = (long) len * inType.byteSize();
        long chunkBytesIn = Math.max(1, chunkRows * rowBytesIn);
        long chunks = (rows + chunkRows - 1) / chunkRows;
        long stateBytes = (long) shape.stateSize() * config.output().byteSize();
        int ioThreads = source.sequential() ? 1 : config.ioThreads();
        int depth = Math.max(2, ioThreads * 2);
        int[] good = new int[(int) chunks];
        EncodingException[] failAt = new EncodingException[(int) chunks];
        List<EncodingException> skipped = Collections.synchronizedList(new ArrayList<>());
        AtomicLong written = new AtomicLong();
        AtomicLong writeNs = new AtomicLong();
        AtomicLong outputWaitNs = new AtomicLong();
        AtomicReference<Exception> writeFailure = new AtomicReference<>();
        java.util.Set<Lease> notHandedOver = java.util.concurrent.ConcurrentHashMap.newKeySet(); // returned here after a failure
        long start = System.nanoTime();
        ExecutorService writer = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("penstock-encode-writer").factory());
        try (StagingPool reads = StagingPool.allocate("encode reads", depth + 1, chunkBytesIn);
             StagingPool staging = hostMemory == null ? StagingPool.allocate("encode staging", config.slots(), chunkBytesIn)
                     : StagingPool.withBacking("encode staging", config.slots(), chunkBytesIn, hostMemory);
             StagingPool states = hostMemory == null ? StagingPool.allocate("encode states", config.slots() + 1, chunkRows * stateBytes)
                     : StagingPool.withBacking("encode states", config.slots() + 1, chunkRows * stateBytes, hostMemory);
             BlockArena deviceStates = device.newArena("encode states");
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunkBytesIn, config.slots()), staging);
             Pump<Lease> pump = EncodePipeline.readPump(reads, source, chunkRows, chunks, depth, ioThreads, timeline)) {
            engine.record(timeline);
            // one device states buffer: kernel k+1 runs after the copy-out of chunk k on the same stream
            Block onDevice = deviceStates.allocate(config.output(), chunkRows, shape.stateSize());
            double[] row = new double[len];
            long[] chunkIndex = {0};
            TransferStats stats;
            try {
                stats = engine.run(rows * rowBytesIn, (offset, stage, bytes) -> {
                    long k = chunkIndex[0]++;
                    try (Lease lease = pump.next()) {
                        MemorySegment.copy(lease.segment(), 0, stage, 0, bytes);
                    }
                    int count = (int) (bytes / rowBytesIn);
                    int kept = 0;
                    for (int r = 0; r < count; r++) {
                        readRow(stage, inType, (long) r * len, row, len);
                        String broken = Rules.check(config.encoding(), config.qubits(), row, len);
                        if (broken != null) {
                            EncodingException bad = new EncodingException(k * chunkRows + r, broken);
                            if (config.policy() == BadRowPolicy.FAIL) {
                                failAt[(int) k] = bad;
                                break;
                            }
                            skipped.add(bad);
                            continue;
                        }
                        if (kept != r) {
                            MemorySegment.copy(stage, r * rowBytesIn, stage, kept * rowBytesIn, rowBytesIn);
                        }
                        kept++;
                    }
                    good[(int) k] = kept;
                }, (TransferEngine.DeviceKernel) (compute, k, data) -> {
                    int count = good[(int) k];
                    long w0 = System.nanoTime();
                    Lease out = states.acquire(EncodePipeline.WAIT); // backpressure: the writer frees these
                    notHandedOver.add(out);
                    long w1 = System.nanoTime();
                    outputWaitNs.addAndGet(w1 - w0);
                    if (timeline != null && w1 - w0 > 50_000) {
                        timeline.record("host", "wait for writer", w0, w1);
                    }
                    Block host = out.block(config.output(), Math.max(1, count), shape.stateSize());
                    if (count > 0) {
                        Block in = Block.wrap(data.segment(), inType, data.owner(), count, len);
                        Block statesOut = onDevice.slice(0, count);
                        kernel.enqueue(compute, in, count, statesOut);
                        compute.copy(statesOut, host.slice(0, count));
                    }
                    compute.launch("hand chunk " + k + " to the writer", () -> {
                        notHandedOver.remove(out);
                        EncodePipeline.write(writer, sink, out, host, count, written, writeNs, writeFailure, timeline);
                    });
                    EncodingException bad = failAt[(int) k];
                    if (bad != null) {
                        compute.launch("bad row " + bad.row(), () -> {
                            throw bad;
                        });
                    }
                });
            } catch (TransferException e) {
                EncodePipeline.finishWrites(writer);
                for (Lease l : notHandedOver) { // the stream skipped their hand-over after the failure
                    l.close();
                }
                throw EncodePipeline.unwrap(e);
            }
            EncodePipeline.finishWrites(writer);
            if (writeFailure.get() != null) {
                throw new java.io.IOException("writing states failed: " + writeFailure.get(), writeFailure.get());
            }
            List<EncodingException> sorted = new ArrayList<>(skipped);
            sorted.sort((a, b) -> Long.compare(a.row(), b.row()));
            return new EncodeSummary(rows, written.get(), List.copyOf(sorted), System.nanoTime() - start, pump.totalWaitNs(), stats,
                    outputWaitNs.get(), writeNs.get());
        } finally {
            writer.shutdownNow();
            writer.awaitTermination(1, TimeUnit.SECONDS);
        }
    }

    private static void readRow(MemorySegment s, DType t, long first, double[] row, int len) {
        for (int i = 0; i < len; i++) {
            row[i] = t == DType.F32 ? s.getAtIndex(ValueLayout.JAVA_FLOAT, first + i) : s.getAtIndex(ValueLayout.JAVA_DOUBLE, first + i);
        }
    }
}
