package dev.penstock.quantum;

import dev.penstock.device.Device;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.Lease;
import dev.penstock.memory.StagingPool;
import dev.penstock.transfer.TransferConfig;
import dev.penstock.transfer.TransferEngine;
import dev.penstock.transfer.TransferException;
import dev.penstock.transfer.TransferStats;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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
/// written; skipped rows are listed. `hostMemory` makes the backing of the staging and of the output
/// buffers, one for each pool, which frees its own (pinned memory for a GPU; null: plain native
/// memory).
public final class DeviceEncodePipeline {
    private DeviceEncodePipeline() {
    }

    /// Runs the encoding of `source` into `sink` on `device` with `kernel`.
    public static EncodeSummary run(Device device, DeviceEncoder kernel, java.util.function.Supplier<StagingPool.Backing> hostMemory, RowSource source, RowSink sink,
                                    EncodePipeline.Config config) throws Exception {
        return run(device, kernel, hostMemory, source, sink, config, null);
    }

    /// As `run`, recording every read, copy, kernel (copy and kernel times from the device's
    /// events) and write on `timeline` (may be null). The chunk encoder is `kernel` on the
    /// device plus the copy back, rows checked on the host first; the rest is `EncodeRun`.
    public static EncodeSummary run(Device device, DeviceEncoder kernel, java.util.function.Supplier<StagingPool.Backing> hostMemory, RowSource source, RowSink sink,
                                    EncodePipeline.Config config, dev.penstock.observe.Timeline timeline) throws Exception {
        Encoder shape = Encoder.of(config.encoding(), config.qubits());
        DType inType = source.dtype();
        java.util.Set<Lease> notHandedOver = java.util.concurrent.ConcurrentHashMap.newKeySet(); // returned here after a failure
        try (EncodeRun run = new EncodeRun(source, sink, config, timeline, shape.stateSize(), hostMemory, false);
             StagingPool staging = hostMemory == null ? StagingPool.allocate("encode staging", config.slots(), run.chunkBytesIn)
                     : StagingPool.withBacking("encode staging", config.slots(), run.chunkBytesIn, hostMemory.get());
             BlockArena deviceStates = device.newArena("encode states");
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(run.chunkBytesIn, config.slots()), staging)) {
            engine.record(timeline);
            int len = run.rowLength;
            long rowBytesIn = run.rowBytesIn;
            int[] good = new int[(int) run.chunks];
            EncodingException[] failAt = new EncodingException[(int) run.chunks];
            // one device states buffer: kernel k+1 runs after the copy-out of chunk k on the same stream
            Block onDevice = deviceStates.allocate(config.output(), run.chunkRows, shape.stateSize());
            double[] row = new double[len];
            long[] chunkIndex = {0};
            TransferStats stats;
            try {
                stats = engine.run(run.rows * rowBytesIn, (offset, stage, bytes) -> {
                    long k = chunkIndex[0]++;
                    run.nextChunk(stage, bytes);
                    int count = (int) (bytes / rowBytesIn);
                    int kept = 0;
                    for (int r = 0; r < count; r++) {
                        readRow(stage, inType, (long) r * len, row, len);
                        String broken = Rules.check(config.encoding(), config.qubits(), row, len);
                        if (broken != null) {
                            EncodingException bad = new EncodingException(k * run.chunkRows + r, broken);
                            if (config.policy() == BadRowPolicy.FAIL) {
                                failAt[(int) k] = bad;
                                break;
                            }
                            run.skipped.add(bad);
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
                    Lease out = run.acquireOutput("host"); // backpressure: the writer frees these
                    notHandedOver.add(out);
                    Block host = out.block(config.output(), Math.max(1, count), shape.stateSize());
                    if (count > 0) {
                        Block in = Block.wrap(data.segment(), inType, data.owner(), count, len);
                        Block statesOut = onDevice.slice(0, count);
                        kernel.enqueue(compute, in, count, statesOut);
                        compute.copy(statesOut, host.slice(0, count));
                    }
                    compute.launch("hand chunk " + k + " to the writer", () -> {
                        notHandedOver.remove(out);
                        run.hand(out, host, count);
                    });
                    EncodingException bad = failAt[(int) k];
                    if (bad != null) {
                        compute.launch("bad row " + bad.row(), () -> {
                            throw bad;
                        });
                    }
                });
            } catch (TransferException e) {
                Exception cause = run.failed(e);
                for (Lease l : notHandedOver) { // the stream skipped their hand-over after the failure
                    l.close();
                }
                throw cause;
            }
            return run.finish(stats);
        }
    }

    private static void readRow(MemorySegment s, DType t, long first, double[] row, int len) {
        for (int i = 0; i < len; i++) {
            row[i] = t == DType.F32 ? s.getAtIndex(ValueLayout.JAVA_FLOAT, first + i) : s.getAtIndex(ValueLayout.JAVA_DOUBLE, first + i);
        }
    }
}
