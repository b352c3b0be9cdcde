package dev.penstock.benchmarks;

import com.google.flatbuffers.FlatBufferBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flatbuf.Block;
import org.apache.arrow.flatbuf.Buffer;
import org.apache.arrow.flatbuf.Field;
import org.apache.arrow.flatbuf.FieldNode;
import org.apache.arrow.flatbuf.FloatingPoint;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.MetadataVersion;
import org.apache.arrow.flatbuf.Precision;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flatbuf.Schema;
import org.apache.arrow.flatbuf.Type;

/// Writes the benchmark's rows as an Arrow IPC file (the file format: magic, schema, record
/// batches, end of stream, footer): `cols` non-nullable float64 columns `f0 …`, `batchRows`
/// rows per record batch, uncompressed — the layout Arrow writers give numeric tables. For the
/// `encode-file` benchmark's Arrow input (Penstock reads Arrow; it does not promise to write it).
final class ArrowFiles {
    private ArrowFiles() {
    }

    /// A source of row values: value `c` of row `r`.
    interface Values {
        double at(long r, int c);
    }

    /// Written beside `file` and renamed into place once complete: an interrupted write leaves
    /// no partial file for the next run to take as its input.
    static void writeFloat64(Path file, long rows, int cols, int batchRows, Values values) throws IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        try {
            write(tmp, rows, cols, batchRows, values);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void write(Path file, long rows, int cols, int batchRows, Values values) throws IOException {
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            long pos = 0;
            byte[] magic = {'A', 'R', 'R', 'O', 'W', '1', 0, 0};
            out.write(magic);
            pos += 8;
            byte[] schema = schemaMessage(cols);
            pos += frame(out, schema, 0);
            List<long[]> blocks = new ArrayList<>(); // offset, metadata length, body length
            for (long first = 0; first < rows; first += batchRows) {
                int n = (int) Math.min(batchRows, rows - first);
                long bodyLength = (long) cols * pad8(8L * n);
                byte[] header = batchMessage(n, cols, bodyLength);
                long at = pos;
                long meta = frame(out, header, bodyLength);
                pos += meta;
                ByteBuffer column = ByteBuffer.allocate((int) pad8(8L * n)).order(ByteOrder.LITTLE_ENDIAN);
                for (int c = 0; c < cols; c++) {
                    column.clear();
                    for (int r = 0; r < n; r++) {
                        column.putDouble(values.at(first + r, c));
                    }
                    out.write(column.array(), 0, column.capacity());
                }
                pos += bodyLength;
                blocks.add(new long[] {at, meta, bodyLength});
            }
            out.write(new byte[] {-1, -1, -1, -1, 0, 0, 0, 0}); // end of stream
            byte[] footer = footer(cols, blocks);
            out.write(footer);
            out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.length).array());
            out.write(magic, 0, 6);
        }
    }

    private static long pad8(long n) {
        return (n + 7) & ~7L;
    }

    /// Writes a continuation marker, the header's length padded so that the body starts on 8
    /// bytes, the header, its padding; returns the bytes written (the message's metadata length).
    private static long frame(OutputStream out, byte[] header, long bodyLength) throws IOException {
        int padded = (int) pad8(header.length);
        out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(-1).putInt(padded).array());
        out.write(header);
        out.write(new byte[padded - header.length]);
        return 8L + padded;
    }

    private static int fields(FlatBufferBuilder b, int cols) {
        int[] fields = new int[cols];
        for (int c = 0; c < cols; c++) {
            int name = b.createString("f" + c);
            int type = FloatingPoint.createFloatingPoint(b, Precision.DOUBLE);
            int children = Field.createChildrenVector(b, new int[0]);
            fields[c] = Field.createField(b, name, false, Type.FloatingPoint, type, 0, children, 0);
        }
        return Schema.createSchema(b, (short) 0, Schema.createFieldsVector(b, fields), 0, 0);
    }

    private static byte[] schemaMessage(int cols) {
        FlatBufferBuilder b = new FlatBufferBuilder(1024);
        int schema = fields(b, cols);
        b.finish(Message.createMessage(b, MetadataVersion.V5, MessageHeader.Schema, schema, 0, 0));
        return b.sizedByteArray();
    }

    private static byte[] batchMessage(int rows, int cols, long bodyLength) {
        FlatBufferBuilder b = new FlatBufferBuilder(1024);
        RecordBatch.startNodesVector(b, cols);
        for (int c = cols - 1; c >= 0; c--) { // structs of a vector go in back to front
            FieldNode.createFieldNode(b, rows, 0);
        }
        int nodes = b.endVector();
        long columnBytes = pad8(8L * rows);
        RecordBatch.startBuffersVector(b, 2 * cols);
        for (int c = cols - 1; c >= 0; c--) {
            Buffer.createBuffer(b, c * columnBytes, 8L * rows); // values
            Buffer.createBuffer(b, c * columnBytes, 0); // no validity bitmap: no nulls
        }
        int buffers = b.endVector();
        int batch = RecordBatch.createRecordBatch(b, rows, nodes, buffers, 0, 0);
        b.finish(Message.createMessage(b, MetadataVersion.V5, MessageHeader.RecordBatch, batch, bodyLength, 0));
        return b.sizedByteArray();
    }

    private static byte[] footer(int cols, List<long[]> blocks) {
        FlatBufferBuilder b = new FlatBufferBuilder(1024);
        int schema = fields(b, cols);
        Footer.startDictionariesVector(b, 0);
        int dictionaries = b.endVector();
        Footer.startRecordBatchesVector(b, blocks.size());
        for (int k = blocks.size() - 1; k >= 0; k--) {
            long[] x = blocks.get(k);
            Block.createBlock(b, x[0], (int) x[1], x[2]);
        }
        int batches = b.endVector();
        b.finish(Footer.createFooter(b, MetadataVersion.V5, schema, dictionaries, batches, 0));
        return b.sizedByteArray();
    }
}
