package dev.penstock.formats.npy;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/// Writes a `.npy` file row block by row block, without knowing the row count up front: the
/// header is written with room to spare and rewritten with the final shape on `close()`.
/// NumPy (`np.load`) reads the result exactly.
///
/// Threading: one thread at a time.
public final class NpyWriter implements AutoCloseable {
    private static final int RESERVED_HEADER = 128;

    private final Path path;
    private final DType dtype;
    private final long[] rowShape;
    private final long rowBytes;
    private final FileChannel channel;
    private final int headerBytes;
    private long rows;
    private boolean closed;

    private NpyWriter(Path path, DType dtype, long[] rowShape) throws IOException {
        this.path = path;
        this.dtype = dtype;
        this.rowShape = rowShape.clone();
        this.rowBytes = Block.elementCount(rowShape) * dtype.byteSize();
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        byte[] header = NpyHeader.encode(dtype, shapeWith(Long.MAX_VALUE / 2), RESERVED_HEADER);
        this.headerBytes = header.length;
        write(ByteBuffer.wrap(header), 0);
    }

    /// A writer of rows of `rowShape` elements of `dtype` (`<f4`, `<f8`, `<c8`, `<c16`, …).
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

    /// Rewrites the header with the final row count and closes the file.
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (channel) {
            byte[] header = NpyHeader.encode(dtype, shapeWith(rows), headerBytes);
            if (header.length != headerBytes) {
                throw new IllegalStateException("header grew from " + headerBytes + " to " + header.length + " bytes");
            }
            write(ByteBuffer.wrap(header), 0);
            channel.truncate(headerBytes + rows * rowBytes);
        }
    }
}
