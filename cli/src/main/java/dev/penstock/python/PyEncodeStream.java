package dev.penstock.python;

import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Block;
import dev.penstock.quantum.EncodeInputs;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.EncodingException;
import dev.penstock.quantum.RowSources;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/// What the Python package's `penstock.encode_batches` iterates: the `EncodePipeline` of
/// `penstock encode` run on a thread of its own, each chunk of `batchSize` input rows handed over
/// as one batch of states (fewer when rows were skipped), in input order. At most `ahead` batches
/// wait to be taken: the pipeline waits for the consumer (backpressure), so an input larger than
/// memory streams through.
public final class PyEncodeStream implements AutoCloseable {
    private final Handover<ByteBuffer> batches;
    private final int stateSize;
    private volatile EncodeSummary summary;

    private PyEncodeStream(PyEncode.Job job, int ahead) {
        this.stateSize = job.stateSize();
        long rowBytes = (long) stateSize * job.config().output().byteSize();
        this.batches = new Handover<>("penstock-encode-batches", ahead, into -> {
            try (job; CpuDevice device = new CpuDevice()) {
                summary = EncodePipeline.run(device, job.source(), states -> {
                    MemorySegment batch = Arena.ofAuto().allocate(Math.max(1, states.byteSize()), 64);
                    MemorySegment.copy(states.segment(), 0, batch, 0, states.byteSize());
                    into.put(batch.asSlice(0, states.shape(0) * rowBytes).asByteBuffer().order(ByteOrder.nativeOrder()));
                }, job.config());
            }
        });
    }

    /// A stream over the rows of `path`, as `PyEncode.file` reads them.
    public static PyEncodeStream file(String path, List<String> columns, String dataset, String encoding, int qubits, String states,
                                      String onBadRow, int batchSize, int ioThreads, int ahead) throws Exception {
        EncodeInputs.Opened opened = EncodeInputs.open(PyEncode.existing(path), columns, dataset, "skip".equals(onBadRow));
        try {
            return start(PyEncode.job(opened.source(), opened, encoding, qubits, states, onBadRow, batchSize, ioThreads), ahead);
        } catch (Exception | Error e) {
            opened.close();
            throw e;
        }
    }

    /// A stream over the row-major `[count, width]` table at native address `address` (see
    /// `PyEncode.array`); the caller keeps that memory alive until the stream ends or is closed.
    public static PyEncodeStream array(long address, long count, int width, String dtype, String encoding, int qubits, String states,
                                       String onBadRow, int batchSize, int ioThreads, int ahead) throws Exception {
        Block block = PyEncode.rows(address, count, width, dtype);
        return start(PyEncode.job(RowSources.of(block), () -> { }, encoding, qubits, states, onBadRow, batchSize, ioThreads), ahead);
    }

    private static PyEncodeStream start(PyEncode.Job job, int ahead) {
        return new PyEncodeStream(job, ahead);
    }

    /// Amplitudes a state.
    public int stateSize() {
        return stateSize;
    }

    /// The next batch of states (`[k, stateSize]`, native order), waiting for it; null after the
    /// last. Throws the pipeline's failure (a bad row under `fail`: its `EncodingException`).
    public ByteBuffer next() throws Exception {
        return batches.next();
    }

    /// Rows left out under skip, each "row N: rule" (complete once `next()` returned null).
    public List<String> skipped() {
        EncodeSummary s = summary;
        return s == null ? List.of() : s.skipped().stream().map(EncodingException::getMessage).toList();
    }

    /// Stops the pipeline (a batch it was handing over is dropped) and waits for its thread.
    @Override
    public void close() throws InterruptedException {
        batches.close();
    }
}
