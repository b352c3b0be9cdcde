package dev.penstock.formats.npy;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import java.io.IOException;
import dev.penstock.io.PendingOutput;
import dev.penstock.io.WriteBehind;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/// Writes a `.npy` file row block by row block, without knowing the row count up front. The
/// rows go to a hidden sibling of the destination (`PendingOutput`) whose header reserves room
/// and says 0 rows; `commit()` writes the final shape, syncs and renames it into place. A writer
/// closed without `commit()` (an error, an interrupt) deletes its temporary and leaves the
/// destination as it was: no partial or placeholder-shaped file ever sits at the user's path.
/// While rows are appended, a `WriteBehind` flushes them to the disk every 32 MB, so that the
/// commit's sync has only the tail left. NumPy (`np.load`) reads the result exactly.
///
/// Threading: one thread at a time.
public final class NpyWriter implements AutoCloseable {
    private static final int RESERVED_HEADER = 128;

    private final Path path;
    private final DType dtype;
    private final long[] rowShape;
    private final long rowBytes;
    private final PendingOutput pending;
    private final FileChannel channel;
    private final WriteBehind writeBehind;
    private final int headerBytes;
    private long rows;
    private boolean closed;

    private NpyWriter(Path path, DType dtype, long[] rowShape) throws IOException {
        this.path = path;
        this.dtype = dtype;
        this.rowShape = rowShape.clone();
        this.rowBytes = Block.elementCount(rowShape) * dtype.byteSize();
        int reserved = NpyHeader.encode(dtype, shapeWith(Long.MAX_VALUE / 2), RESERVED_HEADER).length;
        this.pending = PendingOutput.file(path);
        FileChannel ch = null;
        try {
            ch = FileChannel.open(pending.path(), StandardOpenOption.WRITE);
            byte[] header = NpyHeader.encode(dtype, shapeWith(0), reserved);
            this.headerBytes = header.length;
            long p = 0;
            for (ByteBuffer buf = ByteBuffer.wrap(header); buf.hasRemaining(); ) {
                p += ch.write(buf, p);
            }
        } catch (IOException | RuntimeException e) {
            try (PendingOutput discarded = pending; FileChannel c = ch) { // the channel closed (it was left open), the temporary deleted
                throw e;
            }
        }
        this.channel = ch;
        this.writeBehind = new WriteBehind(ch); // the rows reach the disk while more are written: commit() flushes the tail
    }

    /// A writer of rows of `rowShape` elements of `dtype` (`<f4`, `<f8`, `<c8`, `<c16`, …) that
    /// puts the file at `path` on `commit()`.
    public static NpyWriter open(Path path, DType dtype, long... rowShape) throws IOException {
        return new NpyWriter(path, dtype, rowShape);
    }

    /// Writes a whole block as one `.npy` file.
    public static void write(Path path, Block block) throws IOException {
        long[] shape = block.shape();
        if (shape.length == 0) {
            throw new IllegalArgumentException("cannot write a rank-0 block to " + path);
        }
        try (NpyWriter w = open(path, block.dtype(), Arrays.copyOfRange(shape, 1, shape.length))) {
            w.append(block);
            w.commit();
        }
    }

    /// Appends the rows of `rows` (`[k, …rowShape]`, same dtype, contiguous).
    public void append(Block rows) throws IOException {
        if (rows.dtype() != dtype || !Arrays.equals(Arrays.copyOfRange(rows.shape(), 1, rows.rank()), rowShape)
                || !rows.isContiguous()) {
            throw new IllegalArgumentException(path + ": cannot append " + rows + " to a file of " + dtype.label()
                    + " rows of shape " + Arrays.toString(rowShape));
        }
        append(rows.segment(), rows.shape(0));
    }

    /// Appends `count` rows from `data` (little-endian, C order, `count × rowBytes` bytes).
    public void append(MemorySegment data, long count) throws IOException {
        long bytes = count * rowBytes;
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UnsupportedOperationException("writing .npy on a big-endian machine");
        }
        write(data.asSlice(0, bytes).asByteBuffer(), headerBytes + rows * rowBytes);
        rows += count;
        writeBehind.wrote(bytes);
    }

    /// Rows written so far.
    public long rows() {
        return rows;
    }

    private void write(ByteBuffer buf, long position) throws IOException {
        long p = position;
        while (buf.hasRemaining()) {
            p += channel.write(buf, p);
        }
    }

    private long[] shapeWith(long count) {
        long[] s = new long[rowShape.length + 1];
        s[0] = count;
        System.arraycopy(rowShape, 0, s, 1, rowShape.length);
        return s;
    }

    /// Writes the header with the final row count, syncs the file and renames it into place.
    public void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException(path + ": writer already closed");
        }
        closed = true;
        try (pending) {
            try (channel; writeBehind) {
                writeBehind.finish();
                byte[] header = NpyHeader.encode(dtype, shapeWith(rows), headerBytes);
                if (header.length != headerBytes) {
                    throw new IllegalStateException("header grew from " + headerBytes + " to " + header.length + " bytes");
                }
                write(ByteBuffer.wrap(header), 0);
                channel.truncate(headerBytes + rows * rowBytes);
            }
            pending.commit();
        }
    }

    /// Closes the writer; without `commit()` the rows written are discarded and the
    /// destination is left as it was.
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (pending; channel) {
            writeBehind.close();
        }
    }
}
