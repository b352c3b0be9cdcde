package dev.penstock.quantum;

import dev.penstock.device.Device;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.Lease;
import dev.penstock.memory.StagingPool;
import dev.penstock.observe.Timeline;
import dev.penstock.pump.Pump;
import dev.penstock.pump.PumpConfig;
import dev.penstock.transfer.ChunkSource;
import dev.penstock.transfer.TransferConfig;
import dev.penstock.transfer.TransferEngine;
import dev.penstock.transfer.TransferException;
import dev.penstock.transfer.TransferStats;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.stream.LongStream;

/// Encodes a file's rows into quantum states, end to end, with every stage overlapping:
///
/// ```
///  I/O threads (Pump)   read chunk k+3 rows → host buffer (read pool)
///  host thread          hands the host buffer to the TransferEngine (ChunkSource.filled)
///  copy stream          host buffer → device chunk; the buffer back to the read pool
///  compute stream       encode chunk k → states buffer (output pool)
///  writer thread        states of chunk k-1 → sink, in order; buffer back to the pool
/// ```
///
/// Backpressure: the pump's depth bounds reads ahead; the output pool bounds states waiting for
/// the writer (the compute stream waits for a free buffer). Bad rows: `FAIL` stops at the first
/// with an `EncodingException` naming its global row (rows before it are written); `SKIP` lists
/// them and writes every good row, in order.
public final class EncodePipeline {

    /// Settings of one run, validated at construction.
    ///
    /// @param encoding     the encoding
    /// @param qubits       qubits per state
    /// @param output       c64 or c128 states
    /// @param rowsPerChunk rows per chunk (the unit of read, copy, encode and write)
    /// @param slots        staging/device slots of the transfer engine (and output buffers)
    /// @param ioThreads    I/O threads reading rows
    /// @param policy       what to do with bad rows
    public record Config(Encoding encoding, int qubits, DType output, int rowsPerChunk, int slots, int ioThreads,
                         BadRowPolicy policy) {
        /// Validates the settings.
        public Config {
            if (output != DType.C64 && output != DType.C128) {
                throw new IllegalArgumentException("output: states are c64 (f32) or c128 (f64), got " + output.label());
            }
            if (rowsPerChunk < 1) {
                throw new IllegalArgumentException("rowsPerChunk must be at least 1, got " + rowsPerChunk);
            }
            if (slots < 1) {
                throw new IllegalArgumentException("slots must be at least 1, got " + slots);
            }
            if (ioThreads < 1) {
                throw new IllegalArgumentException("ioThreads must be at least 1, got " + ioThreads);
            }
        }
    }

    static final Duration WAIT = Duration.ofMinutes(1);

    /// Rows per chunk for an input of `rows` rows: the configured count, never more than the
    /// input holds (two rows of 30 qubits must not stage 1,024 rows' worth of states).
    static int chunkRows(long rows, Config config) {
        return (int) Math.max(1, Math.min(config.rowsPerChunk(), rows));
    }

    /// Host memory a run on the CPU device allocates for `rows` rows of `rowLength` values of
    /// `dtype`: the read pool (whose buffers the device copies from: the engine allocates no
    /// staging), the transfer engine's device slots and the state pool, all allocated once. The
    /// preflight compares it with the machine's memory.
    public static long hostBytes(long rows, int rowLength, DType dtype, Config config) {
        long chunk = chunkRows(rows, config);
        long chunkIn = Math.max(1, chunk * rowLength * dtype.byteSize());
        double stateRow = Math.scalb(1.0, config.qubits()) * config.output().byteSize();
        int depth = Math.max(2, config.ioThreads() * 2);
        double bytes = (double) chunkIn * (depth + 1 + 2 * config.slots()) + chunk * stateRow * (config.slots() + 1);
        return bytes >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) bytes;
    }

    private EncodePipeline() {
    }

    /// Runs the pipeline on `device`; returns when every state is written.
    ///
    /// @throws EncodingException naming the first bad row under `FAIL`
    public static EncodeSummary run(Device device, RowSource source, RowSink sink, Config config) throws Exception {
        return run(device, source, sink, config, null);
    }

    /// As `run`, recording every read, copy, kernel and write on `timeline` (may be null). The
    /// chunk encoder is the host `Encoder`, on the compute stream; the rest is `EncodeRun`.
    public static EncodeSummary run(Device device, RowSource source, RowSink sink, Config config, Timeline timeline)
            throws Exception {
        Encoder encoder = Encoder.of(config.encoding(), config.qubits());
        try (EncodeRun run = new EncodeRun(source, sink, config, timeline, encoder.stateSize(), null, true);
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(run.chunkBytesIn, config.slots()))) {
            engine.record(timeline);
            TransferStats stats;
            try {
                // the device reads host memory: it copies each chunk straight from the buffer the I/O threads read it into
                ChunkSource chunks = new ChunkSource() {
                    @Override
                    public void read(long offset, MemorySegment staging, long bytes) throws Exception {
                        run.nextChunk(staging, bytes);
                    }

                    @Override
                    public Lease filled(long offset, long bytes) throws Exception {
                        return run.readChunk();
                    }
                };
                stats = engine.run(run.rows * run.rowBytesIn, chunks, (k, data) -> {
                    int count = (int) (data.byteSize() / run.rowBytesIn);
                    Block in = Block.wrap(data.segment(), source.dtype(), data.owner(), count, run.rowLength);
                    Lease out = run.acquireOutput("compute stream"); // backpressure: the writer frees these
                    Block outBlock = out.block(config.output(), count, encoder.stateSize());
                    EncodeResult r;
                    try {
                        r = encoder.encodeBatch(in, outBlock, k * run.chunkRows, config.policy());
                    } catch (EncodingException bad) {
                        // fail-fast: the rows before the bad one are good and still get written
                        run.hand(out, outBlock, bad.row() - k * run.chunkRows);
                        throw bad;
                    } catch (RuntimeException e) {
                        out.close();
                        throw e;
                    }
                    run.skipped.addAll(r.skipped());
                    run.hand(out, outBlock, r.rowsWritten());
                });
            } catch (TransferException e) {
                throw run.failed(e); // the good rows before a failure are still written
            }
            return run.finish(stats);
        }
    }

    /// I/O threads reading chunk k's rows (`chunkRows` from row k·chunkRows) into a lease of
    /// `reads`, `depth` chunks ahead; each read is recorded on `timeline` (may be null).
    static Pump<Lease> readPump(StagingPool reads, RowSource source, int chunkRows, long chunks, int depth, int ioThreads, Timeline timeline) {
        long rows = source.rows();
        return Pump.<Lease>builder(k -> {
                    Lease lease = reads.acquire(WAIT);
                    try {
                        long first = k * chunkRows;
                        long t0 = System.nanoTime();
                        source.read(first, (int) Math.min(chunkRows, rows - first), lease.segment());
                        if (timeline != null) {
                            timeline.record(Thread.currentThread().getName().replace("penstock-io-encode-", "I/O thread "), "read", t0,
                                    System.nanoTime());
                        }
                        return lease;
                    } catch (Exception e) {
                        lease.close();
                        throw e;
                    }
                })
                .config(PumpConfig.of(depth, ioThreads).withName("encode"))
                .source(LongStream.range(0, chunks).iterator())
                .onDiscard(Lease::close)
                .start();
    }
}
