package dev.penstock.formats.arrow;

import dev.penstock.formats.DefaultColumns;
import dev.penstock.io.BadInputException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.flatbuf.Block;
import org.apache.arrow.flatbuf.Buffer;
import org.apache.arrow.flatbuf.Field;
import org.apache.arrow.flatbuf.FieldNode;
import org.apache.arrow.flatbuf.FixedSizeList;
import org.apache.arrow.flatbuf.FloatingPoint;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.flatbuf.Int;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.Precision;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flatbuf.Schema;
import org.apache.arrow.flatbuf.Type;
import org.apache.arrow.flatbuf.Union;
import org.apache.arrow.flatbuf.UnionMode;

/// The Arrow IPC format as `ArrowRows` reads it: message framing (continuation marker and
/// header length, or the length alone), the file format's footer and the stream format's
/// messages, the column selection from the schema, and each record batch's arrays located in
/// the file — every offset and length checked against the file before a row is read, a damaged
/// file a `BadInputException` naming it and the byte. Headers are `arrow-format`'s FlatBuffers
/// tables; no buffer is copied here.
///
/// Why one file over 400 lines: the stream walk, the footer and the walk over a batch's nodes
/// and buffers share one set of bounds checks and one error form, and the column selection decides
/// what the batch walk keeps; the decoding of rows is `ArrowRows`.
final class ArrowIpc {
    private ArrowIpc() {
    }

    /// How deep nested columns may go (a damaged schema can make them a cycle).
    private static final int MAX_DEPTH = 64;
    static final byte[] MAGIC = "ARROW1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /// How a column's values are stored.
    enum Kind { I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 }

    /// Where one array's validity bitmap (length 0: no nulls) and values lie in the file.
    record Array(long validity, long validityBytes, long values, long valuesBytes, long nulls) {
    }

    /// One record batch: its first row, its rows, and per selected column (list mode: [list,
    /// values]) its arrays.
    record Batch(long first, long rows, Array[] arrays) {
    }

    /// What opening found: the selection and every record batch.
    record Parsed(List<String> names, Kind[] kinds, boolean list, int width, List<Batch> batches, List<String> leftOut) {
    }

    /// The record batches of the memory-mapped Arrow IPC `map` (of `file`), `columns` selected
    /// (empty: `ArrowRows.open`'s default).
    static Parsed read(Path file, MemorySegment map, List<String> columns) {
        long size = map.byteSize();
        boolean fileFormat = size >= 8 && Arrays.equals(map.asSlice(0, 6).toArray(ValueLayout.JAVA_BYTE), MAGIC);
        return fileFormat ? readFile(file, map, columns) : readStream(file, map, columns);
    }

    /// A message: its header and where its body lies; `end`: the offset after it (-1: the end of
    /// the stream).
    private record Framed(Message message, long body, long bodyLength, long end) {
    }

    /// The message at `at` (a continuation marker and the header's length, or the length alone as
    /// before Arrow 0.15), or an end-of-stream marker (`message` null).
    private static Framed message(Path file, MemorySegment map, long at) {
        long size = map.byteSize();
        if (at < 0 || at + 4 > size) {
            throw bad(file, "byte " + at + ": a message beyond the end of the file (" + size + " bytes)");
        }
        ValueLayout.OfInt le = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        long pos = at;
        int c = map.get(le, pos);
        long metaLength;
        if (c == -1) {
            if (pos + 8 > size) {
                throw bad(file, "byte " + at + ": a message cut short");
            }
            metaLength = map.get(le, pos + 4);
            pos += 8;
        } else {
            metaLength = c;
            pos += 4;
        }
        if (metaLength == 0) {
            return new Framed(null, pos, 0, -1);
        }
        if (metaLength < 0 || pos + metaLength > size) {
            throw bad(file, "byte " + at + ": a message header of " + metaLength + " bytes runs past the end of the file (" + size + " bytes)");
        }
        try {
            Message m = Message.getRootAsMessage(map.asSlice(pos, metaLength).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN));
            long body = pos + metaLength;
            long bodyLength = m.bodyLength();
            if (bodyLength < 0 || bodyLength > size - body) {
                throw bad(file, "byte " + at + ": a message body of " + bodyLength + " bytes runs past the end of the file (" + size + " bytes)");
            }
            return new Framed(m, body, bodyLength, body + bodyLength);
        } catch (BadInputException e) {
            throw e;
        } catch (RuntimeException e) {
            throw bad(file, "byte " + at + ": not an Arrow message (" + e.getClass().getSimpleName() + ")");
        }
    }

    /// The stream format: the schema message, then record batches (dictionary batches skipped)
    /// until the end-of-stream marker or the end of the file.
    private static Parsed readStream(Path file, MemorySegment map, List<String> columns) {
        long size = map.byteSize();
        Schema schema = null;
        Selection sel = null;
        List<Batch> batches = new ArrayList<>();
        long first = 0;
        long pos = 0;
        while (pos + 4 <= size) {
            long at = pos;
            Framed f = message(file, map, at);
            if (f.message() == null) {
                break;
            }
            try {
                switch (f.message().headerType()) {
                    case MessageHeader.Schema -> {
                        if (schema != null) {
                            throw bad(file, "byte " + at + ": a second schema");
                        }
                        schema = (Schema) f.message().header(new Schema());
                        sel = select(file, schema, columns);
                    }
                    case MessageHeader.RecordBatch -> {
                        if (sel == null) {
                            throw bad(file, "byte " + at + ": a record batch before the schema");
                        }
                        Batch b = batch(file, at, schema, sel, (RecordBatch) f.message().header(new RecordBatch()), f.body(), f.bodyLength(), first);
                        batches.add(b);
                        first += b.rows();
                    }
                    case MessageHeader.DictionaryBatch -> {
                        // dictionaries belong to dictionary-encoded columns, never selected
                    }
                    default -> throw bad(file, "byte " + at + ": an unexpected " + MessageHeader.name(f.message().headerType()) + " message");
                }
            } catch (BadInputException e) {
                throw e;
            } catch (RuntimeException e) {
                throw bad(file, "byte " + at + ": a damaged message header (" + e.getClass().getSimpleName() + ")");
            }
            pos = f.end();
        }
        if (sel == null) {
            throw bad(file, size == 0 ? "an empty file, not Arrow IPC" : "no Arrow schema at the start: not an Arrow IPC file or stream");
        }
        return new Parsed(sel.names(), sel.kinds(), sel.list(), sel.width(), batches, sel.leftOut());
    }

    /// The file format: the footer at the end (its length and the magic after it) gives the
    /// schema and where each record batch lies.
    private static Parsed readFile(Path file, MemorySegment map, List<String> columns) {
        long size = map.byteSize();
        if (size < 18 || !Arrays.equals(map.asSlice(size - 6, 6).toArray(ValueLayout.JAVA_BYTE), MAGIC)) {
            throw bad(file, "an Arrow file without its footer (cut short? it should end with ARROW1)");
        }
        int footerLength = map.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), size - 10);
        long footerAt = size - 10 - footerLength;
        if (footerLength <= 0 || footerAt < 8) {
            throw bad(file, "byte " + (size - 10) + ": a footer length of " + footerLength + " bytes in a file of " + size);
        }
        Footer footer;
        Schema schema;
        Selection sel;
        try {
            footer = Footer.getRootAsFooter(map.asSlice(footerAt, footerLength).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN));
            schema = footer.schema();
            if (schema == null) {
                throw bad(file, "byte " + footerAt + ": a footer without a schema");
            }
        } catch (BadInputException e) {
            throw e;
        } catch (RuntimeException e) {
            throw bad(file, "byte " + footerAt + ": a damaged footer (" + e.getClass().getSimpleName() + ")");
        }
        try {
            sel = select(file, schema, columns);
        } catch (BadInputException e) {
            throw e;
        } catch (RuntimeException e) {
            throw bad(file, "byte " + footerAt + ": a damaged schema (" + e.getClass().getSimpleName() + ")");
        }
        List<Batch> batches = new ArrayList<>();
        long first = 0;
        Block block = new Block();
        long at = footerAt;
        try {
            for (int k = 0; k < footer.recordBatchesLength(); k++) {
                footer.recordBatches(block, k);
                at = block.offset();
                Framed f = message(file, map, at);
                if (f.message() == null || f.message().headerType() != MessageHeader.RecordBatch) {
                    throw bad(file, "byte " + at + ": the footer's record batch " + k + " is not one");
                }
                Batch b = batch(file, at, schema, sel, (RecordBatch) f.message().header(new RecordBatch()), f.body(), f.bodyLength(), first);
                batches.add(b);
                first += b.rows();
            }
        } catch (BadInputException e) {
            throw e;
        } catch (RuntimeException e) {
            throw bad(file, "byte " + at + ": a damaged footer or message header (" + e.getClass().getSimpleName() + ")");
        }
        return new Parsed(sel.names(), sel.kinds(), sel.list(), sel.width(), batches, sel.leftOut());
    }

    private static BadInputException bad(Path file, String what) {
        return new BadInputException(file, file + ": " + what);
    }

    /// The selected columns: their top-level field indices, names, value kinds; list mode's row width.
    private record Selection(int[] fields, List<String> names, Kind[] kinds, boolean list, int width, List<String> leftOut) {
    }

    private static Selection select(Path file, Schema schema, List<String> columns) {
        int n = schema.fieldsLength();
        List<String> all = new ArrayList<>();
        for (int f = 0; f < n; f++) {
            String name = schema.fields(f).name();
            all.add(name != null ? name : "#" + f); // a column without a name: by its position
        }
        List<Integer> picked = new ArrayList<>();
        List<String> leftOut = List.of();
        if (columns.isEmpty()) {
            List<DefaultColumns.Kind> kinds = new ArrayList<>();
            for (int f = 0; f < n; f++) {
                Field fd = schema.fields(f);
                Kind k = kind(fd);
                kinds.add(k == Kind.F32 || k == Kind.F64 ? DefaultColumns.Kind.FLOAT : k != null ? DefaultColumns.Kind.INTEGER
                        : listKind(fd) != null ? DefaultColumns.Kind.LIST : DefaultColumns.Kind.OTHER);
            }
            DefaultColumns.Choice choice = DefaultColumns.choose(file, all, kinds);
            picked.addAll(choice.picked());
            leftOut = choice.leftOut();
        } else {
            for (String c : columns) {
                int f = all.indexOf(c);
                if (f < 0) {
                    throw bad(file, "no column '" + c + "' (the columns: " + String.join(", ", all) + ")");
                }
                picked.add(f);
            }
        }
        int[] fields = picked.stream().mapToInt(Integer::intValue).toArray();
        List<String> names = new ArrayList<>();
        for (int f : fields) {
            names.add(all.get(f));
        }
        if (fields.length == 1 && listKind(schema.fields(fields[0])) != null) {
            Field list = schema.fields(fields[0]);
            int size = ((FixedSizeList) list.type(new FixedSizeList())).listSize();
            if (size < 1) {
                throw bad(file, "column '" + list.name() + "': a fixed-size list of " + size + " values");
            }
            return new Selection(fields, names, new Kind[] {listKind(list)}, true, size, leftOut);
        }
        Kind[] kinds = new Kind[fields.length];
        for (int k = 0; k < fields.length; k++) {
            Field fd = schema.fields(fields[k]);
            kinds[k] = kind(fd);
            if (kinds[k] == null) {
                throw bad(file, "column '" + fd.name() + "' is " + describe(fd) + ", not numbers"
                        + (listKind(fd) != null ? " (a fixed-size list is read alone: --columns " + fd.name() + ")" : "")
                        + (fd.dictionary() != null ? " (dictionary-encoded)" : ""));
            }
        }
        return new Selection(fields, names, kinds, false, fields.length, leftOut);
    }

    private static String describe(Field f) {
        String t = Type.name(f.typeType());
        if (f.typeType() == Type.FloatingPoint) {
            t += "(" + Precision.name(((FloatingPoint) f.type(new FloatingPoint())).precision()) + ")";
        }
        return t;
    }

    /// The kind of a flat numeric field (null: not one).
    private static Kind kind(Field f) {
        if (f.dictionary() != null || f.childrenLength() != 0) {
            return null;
        }
        if (f.typeType() == Type.FloatingPoint) {
            short p = ((FloatingPoint) f.type(new FloatingPoint())).precision();
            return p == Precision.DOUBLE ? Kind.F64 : p == Precision.SINGLE ? Kind.F32 : null;
        }
        if (f.typeType() == Type.Int) {
            Int t = (Int) f.type(new Int());
            return switch (t.bitWidth()) {
                case 8 -> t.isSigned() ? Kind.I8 : Kind.U8;
                case 16 -> t.isSigned() ? Kind.I16 : Kind.U16;
                case 32 -> t.isSigned() ? Kind.I32 : Kind.U32;
                case 64 -> t.isSigned() ? Kind.I64 : Kind.U64;
                default -> null;
            };
        }
        return null;
    }

    /// The values' kind of a fixed-size list of numbers (null: not one).
    private static Kind listKind(Field f) {
        if (f.typeType() != Type.FixedSizeList || f.dictionary() != null || f.childrenLength() != 1) {
            return null;
        }
        return kind(f.children(0));
    }

    /// A walk over the batch's nodes and buffers in the schema's depth-first order.
    private static final class Cursor {
        int node;
        int buffer;
        int variadic;
    }

    private static Batch batch(Path file, long at, Schema schema, Selection sel, RecordBatch rb, long body, long bodyLength, long first) {
        if (rb.compression() != null) {
            throw bad(file, "byte " + at + ": a compressed record batch (LZ4/ZSTD bodies are not read; write the file uncompressed)");
        }
        long rows = rb.length();
        if (rows < 0) {
            throw bad(file, "byte " + at + ": a record batch of " + rows + " rows");
        }
        Array[] arrays = new Array[sel.list() ? 2 : sel.fields().length];
        Cursor c = new Cursor();
        for (int f = 0; f < schema.fieldsLength(); f++) {
            Field fd = schema.fields(f);
            if (sel.list() && sel.fields()[0] == f) {
                arrays[0] = array(file, at, rb, c, body, bodyLength, 1); // the list's validity, no values buffer
                arrays[1] = array(file, at, rb, c, body, bodyLength, 2);
                check(file, at, fd, arrays[0], rows, 0);
                check(file, at, fd, arrays[1], Math.multiplyExact(rows, sel.width()), byteWidth(sel.kinds()[0]));
                continue;
            }
            Array a = null;
            for (int k = 0; !sel.list() && k < sel.fields().length; k++) {
                if (sel.fields()[k] == f) { // the selection's order, not the schema's (a column may come twice)
                    if (a == null) {
                        a = array(file, at, rb, c, body, bodyLength, 2);
                        check(file, at, fd, a, rows, byteWidth(sel.kinds()[k]));
                    }
                    arrays[k] = a;
                }
            }
            if (a == null) {
                skip(file, at, fd, rb, c);
            }
        }
        return new Batch(first, rows, arrays);
    }

    /// The next node with `buffers` buffers (validity first, then values).
    private static Array array(Path file, long at, RecordBatch rb, Cursor c, long body, long bodyLength, int buffers) {
        if (c.node >= rb.nodesLength() || c.buffer + buffers > rb.buffersLength()) {
            throw bad(file, "byte " + at + ": the record batch has fewer arrays than its schema");
        }
        FieldNode node = rb.nodes(c.node++);
        Buffer validity = rb.buffers(c.buffer++);
        Buffer values = buffers > 1 ? rb.buffers(c.buffer++) : null;
        for (Buffer b : new Buffer[] {validity, values}) {
            if (b != null && (b.offset() < 0 || b.length() < 0 || b.offset() > bodyLength || b.length() > bodyLength - b.offset())) {
                throw bad(file, "byte " + at + ": a buffer [" + b.offset() + ", +" + b.length() + ") outside the message body of " + bodyLength + " bytes");
            }
        }
        return new Array(body + validity.offset(), validity.length(), values == null ? 0 : body + values.offset(), values == null ? 0 : values.length(),
                node.nullCount());
    }

    /// Checks that `a` holds `values` values of `byteWidth` bytes (0: no values buffer) and, if
    /// it has nulls, a bitmap for them.
    private static void check(Path file, long at, Field fd, Array a, long values, int byteWidth) {
        if (a.nulls() > 0 && a.validityBytes() < (values + 7) / 8) {
            throw bad(file, "byte " + at + ": column '" + fd.name() + "': a validity bitmap of " + a.validityBytes() + " bytes for " + values + " values");
        }
        if (byteWidth > 0 && a.valuesBytes() / byteWidth < values) {
            throw bad(file, "byte " + at + ": column '" + fd.name() + "': " + a.valuesBytes() + " bytes of values for " + values + " values of "
                    + byteWidth + " bytes");
        }
    }

    /// Steps over an unselected field's nodes and buffers (its children's too).
    private static void skip(Path file, long at, Field f, RecordBatch rb, Cursor c) {
        skip(file, at, f, rb, c, 0);
    }

    private static void skip(Path file, long at, Field f, RecordBatch rb, Cursor c, int depth) {
        if (depth > MAX_DEPTH) {
            throw bad(file, "byte " + at + ": columns nested more than " + MAX_DEPTH + " deep");
        }
        c.node++;
        int buffers = switch (f.typeType()) {
            case Type.Null, Type.RunEndEncoded -> 0;
            case Type.Struct_, Type.FixedSizeList -> 1;
            case Type.Int, Type.FloatingPoint, Type.Bool, Type.Decimal, Type.Date, Type.Time, Type.Timestamp, Type.Interval,
                 Type.FixedSizeBinary, Type.Duration, Type.List, Type.LargeList, Type.Map -> 2;
            case Type.Binary, Type.Utf8, Type.LargeBinary, Type.LargeUtf8, Type.ListView, Type.LargeListView -> 3;
            case Type.BinaryView, Type.Utf8View -> {
                if (c.variadic >= rb.variadicBufferCountsLength()) {
                    throw bad(file, "byte " + at + ": column '" + f.name() + "': its variadic buffers are not counted");
                }
                yield 2 + (int) rb.variadicBufferCounts(c.variadic++);
            }
            case Type.Union -> ((Union) f.type(new Union())).mode() == UnionMode.Dense ? 2 : 1;
            default -> throw bad(file, "byte " + at + ": column '" + f.name() + "' of an unknown type (" + f.typeType() + ")");
        };
        c.buffer += buffers;
        for (int k = 0; k < f.childrenLength(); k++) {
            skip(file, at, f.children(k), rb, c, depth + 1);
        }
    }

    static int byteWidth(Kind k) {
        return switch (k) {
            case I8, U8 -> 1;
            case I16, U16 -> 2;
            case I32, U32, F32 -> 4;
            case I64, U64, F64 -> 8;
        };
    }

}
