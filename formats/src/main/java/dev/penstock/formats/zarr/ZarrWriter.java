package dev.penstock.formats.zarr;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.io.Json;
import dev.penstock.io.PendingOutput;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.Deflater;

/// Writes a 2-d array `[rows, width]` as a Zarr v2 directory store, chunked along rows, row
/// block by row block, without knowing the row count up front.
///
/// ```
///   OUT.zarr/.zarray   {"zarr_format": 2, "shape": [rows, width], "chunks": [chunkRows, width],
///                       "dtype": "<c16", "compressor": {"id": "zlib", "level": 1}, "order": "C", …}
///   OUT.zarr/.zattrs   user attributes (optional)
///   OUT.zarr/0.0, 1.0, …  one file per chunk, each compressed in one shot; the last one padded
///                          with zeros to the full chunk shape (zarr-python 2.x rejects short ones)
/// ```
///
/// Version 2 by default because Debian's zarr-python (2.13) reads only v2; `ZarrFormat.V3` writes
/// `zarr.json` (attributes inside), chunk keys `c/i/0` and gzip (v3's codec) instead. Arrays of
/// strings (`strings`) are variable-length UTF-8 (`vlen-utf8`) in either. The store is written beside its
/// destination (`PendingOutput`) and swapped in by `commit()`, `.zarray` last with the final
/// shape; a writer closed without `commit()` discards what it wrote and leaves the destination
/// as it was. An existing destination is replaced only if it holds nothing but Zarr files.
/// Metadata is ASCII-only JSON (other characters escaped as backslash-u and four hex digits: zarr-python 2 decodes it as
/// ASCII). A member of a group (`ZarrGroup.array`) is committed with its group.
///
/// Threading: one thread at a time.
public final class ZarrWriter implements AutoCloseable {
    private static final Pattern CHUNK_KEY = Pattern.compile("\\d+([./]\\d+)*");

    private final PendingOutput pending;
    private final Path display;
    private final Path dir;
    private final ZarrFormat format;
    private final DType dtype; // null: strings
    private final java.util.List<String> texts;
    private final long width;
    private final int chunkRows;
    private final int level;
    private final Map<String, Object> attributes;
    private final byte[] chunk;
    private final long rowBytes;
    private int rowsInChunk;
    private long chunksWritten;
    private long rows;
    private final Deflater deflater;
    private byte[] compressed = new byte[0];
    private boolean closed;

    private ZarrWriter(Path display, Path dir, PendingOutput pending, ZarrFormat format, DType dtype, long width, int chunkRows, int level,
            Map<String, Object> attributes) throws IOException {
        this.display = display;
        this.dir = dir;
        this.pending = pending;
        this.format = format;
        this.dtype = dtype;
        this.texts = dtype == null ? new java.util.ArrayList<>() : null;
        this.width = width;
        this.chunkRows = chunkRows;
        this.level = level;
        this.attributes = Map.copyOf(attributes);
        this.rowBytes = dtype == null ? 0 : width * dtype.byteSize();
        this.chunk = new byte[(int) (chunkRows * rowBytes)];
        this.deflater = level < 0 ? null : new Deflater(level, format == ZarrFormat.V3); // v3: raw deflate inside gzip
        Files.createDirectories(dir);
    }

    /// A writer of rows of `width` elements of `dtype`, `chunkRows` rows per chunk, zlib `level`
    /// (0–9, or -1 for `"compressor": null`), with `attributes` in `.zattrs` (strings and
    /// numbers), that puts the array at `dir` on `commit()`.
    public static ZarrWriter open(Path dir, DType dtype, long width, int chunkRows, int level, Map<String, Object> attributes)
            throws IOException {
        return open(dir, ZarrFormat.V2, dtype, width, chunkRows, level, attributes);
    }

    /// As `open(dir, dtype, …)`, to `format` (for `V3`, `level` is gzip's).
    public static ZarrWriter open(Path dir, ZarrFormat format, DType dtype, long width, int chunkRows, int level,
            Map<String, Object> attributes) throws IOException {
        check(dir, dtype, width, chunkRows, level);
        PendingOutput pending = PendingOutput.directory(dir, ZarrWriter::isZarrEntry);
        try {
            return new ZarrWriter(dir, pending.path(), pending, format, dtype, width, chunkRows, level, attributes);
        } catch (IOException | RuntimeException e) {
            pending.close();
            throw e;
        }
    }

    /// An array `name` inside a group being written at `groupDir` (committed with the group);
    /// `dtype` null: strings, one per row.
    static ZarrWriter member(Path display, Path groupDir, String name, ZarrFormat format, DType dtype, long width, int chunkRows,
            int level, Map<String, Object> attributes) throws IOException {
        check(display, dtype, width, chunkRows, level);
        return new ZarrWriter(display, groupDir.resolve(name), null, format, dtype, width, chunkRows, level, attributes);
    }

    private static void check(Path dir, DType dtype, long width, int chunkRows, int level) {
        if (chunkRows < 1) {
            throw new IllegalArgumentException(dir + ": option 'chunkRows' must be at least 1, got " + chunkRows);
        }
        if (level < -1 || level > 9) {
            throw new IllegalArgumentException(dir + ": zlib level must be in [0, 9] (or -1 for no compression), got " + level);
        }
        if (width < 1) {
            throw new IllegalArgumentException(dir + ": rows must have at least one value, got width " + width);
        }
        long chunkBytes = chunkRows * width * (dtype == null ? 1 : dtype.byteSize());
        if (chunkBytes > Integer.MAX_VALUE - 64 || chunkBytes < 0) {
            throw new IllegalArgumentException(dir + ": a chunk of " + chunkRows + " rows of " + width + " values is "
                    + chunkBytes + " bytes; use fewer rows per chunk");
        }
    }

    /// True for the files a Zarr store holds (relative to the store): metadata (`.zarray`,
    /// `.zgroup`, `.zattrs`, `.zmetadata`, `zarr.json`) and chunk keys (`0.0`, `3.1`, `0/0`, `c/0/0`).
    public static boolean isZarrEntry(Path relative) {
        String name = relative.getFileName().toString();
        return name.equals(".zarray") || name.equals(".zgroup") || name.equals(".zattrs") || name.equals(".zmetadata")
                || name.equals("zarr.json") || CHUNK_KEY.matcher(name).matches();
    }

    /// Appends the rows of `block` (`[k, width]`, same dtype, contiguous).
    public void append(Block block) throws IOException {
        if (dtype == null || block.dtype() != dtype || block.rank() != 2 || block.shape(1) != width || !block.isContiguous()) {
            throw new IllegalArgumentException(display + ": cannot append " + block + " to a Zarr array of " + (dtype == null ? "string" : dtype.label())
                    + " rows of width " + width);
        }
        MemorySegment src = block.segment();
        long k = block.shape(0);
        long done = 0;
        while (done < k) {
            int take = (int) Math.min(chunkRows - rowsInChunk, k - done);
            MemorySegment.copy(src, ValueLayout.JAVA_BYTE, done * rowBytes, chunk, (int) (rowsInChunk * rowBytes), (int) (take * rowBytes));
            rowsInChunk += take;
            done += take;
            if (rowsInChunk == chunkRows) {
                flushChunk();
            }
        }
        rows += k;
    }

    /// Appends `values` as rows (`width` strings each) of an array of strings (`ZarrGroup.strings`).
    public void appendStrings(String... values) throws IOException {
        if (dtype != null || values.length % width != 0) {
            throw new IllegalArgumentException(display + ": cannot append " + values.length + " strings to a Zarr array of "
                    + (dtype == null ? "string" : dtype.label()) + " rows of width " + width);
        }
        for (int k = 0; k < values.length; k++) {
            texts.add(java.util.Objects.requireNonNull(values[k], "a string"));
            if ((k + 1) % width == 0) {
                rowsInChunk++;
                rows++;
                if (rowsInChunk == chunkRows) {
                    flushChunk();
                }
            }
        }
    }

    /// Rows appended so far.
    public long rows() {
        return rows;
    }

    private void flushChunk() throws IOException {
        byte[] raw;
        if (dtype == null) {
            raw = vlenUtf8();
        } else {
            if (rowsInChunk < chunkRows) {
                Arrays.fill(chunk, (int) (rowsInChunk * rowBytes), chunk.length, (byte) 0); // pad the edge chunk
            }
            raw = chunk;
        }
        Path file = format == ZarrFormat.V2 ? dir.resolve(chunksWritten + ".0") : dir.resolve("c").resolve(Long.toString(chunksWritten)).resolve("0");
        if (format == ZarrFormat.V3) {
            Files.createDirectories(file.getParent());
        }
        if (deflater == null) {
            Files.write(file, raw);
        } else {
            int n = deflate(raw);
            try (var out = Files.newOutputStream(file)) {
                if (format == ZarrFormat.V3) { // gzip: a member header, the raw deflate stream, CRC-32 and length
                    out.write(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
                    out.write(compressed, 0, n);
                    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                    crc.update(raw);
                    out.write(le32((int) crc.getValue()));
                    out.write(le32(raw.length));
                } else {
                    out.write(compressed, 0, n);
                }
            }
        }
        chunksWritten++;
        rowsInChunk = 0;
    }

    private int deflate(byte[] raw) {
        deflater.reset();
        deflater.setInput(raw);
        deflater.finish();
        if (compressed.length < raw.length + 1024) {
            compressed = new byte[raw.length + raw.length / 100 + 1024];
        }
        int n = 0;
        while (!deflater.finished()) {
            n += deflater.deflate(compressed, n, compressed.length - n);
            if (n == compressed.length) {
                compressed = Arrays.copyOf(compressed, compressed.length * 2);
            }
        }
        return n;
    }

    /// The chunk's strings, padded with empty ones to the full chunk, as `vlen-utf8` encodes
    /// them (numcodecs' and v3's alike): the count, then each length and its UTF-8 bytes, all
    /// little-endian 32-bit.
    private byte[] vlenUtf8() {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        int items = (int) (chunkRows * width);
        b.writeBytes(le32(items));
        for (int k = 0; k < items; k++) {
            byte[] utf8 = k < texts.size() ? texts.get(k).getBytes(StandardCharsets.UTF_8) : new byte[0];
            b.writeBytes(le32(utf8.length));
            b.writeBytes(utf8);
        }
        texts.clear();
        return b.toByteArray();
    }

    private static byte[] le32(int v) {
        return new byte[] {(byte) v, (byte) (v >>> 8), (byte) (v >>> 16), (byte) (v >>> 24)};
    }

    /// Writes the last (padded) chunk and the metadata with the final shape, syncs the store
    /// and swaps it in at the destination (a group's member waits for its group's commit).
    public void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException(display + ": writer already closed");
        }
        closed = true;
        try {
            finish();
            if (pending != null) {
                pending.commit();
            }
        } finally {
            end();
        }
    }

    /// Closes the writer; without `commit()` everything it wrote is discarded and the
    /// destination is left as it was.
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        end();
    }

    private void end() throws IOException {
        if (deflater != null) {
            deflater.end();
        }
        if (pending != null) {
            pending.close();
        }
    }

    private void finish() throws IOException {
        if (rowsInChunk > 0) {
            flushChunk();
        }
        if (format == ZarrFormat.V3) {
            Files.writeString(dir.resolve("zarr.json"), zarrJson(), StandardCharsets.US_ASCII);
            return;
        }
        String compressor = level < 0 ? "null" : "{\"id\": \"zlib\", \"level\": " + level + "}";
        String zarray = String.format(Locale.ROOT, """
                {
                    "zarr_format": 2,
                    "shape": [%d, %d],
                    "chunks": [%d, %d],
                    "dtype": "%s",
                    "compressor": %s,
                    "fill_value": %s,
                    "order": "C",
                    "filters": %s,
                    "dimension_separator": "."
                }
                """, rows, width, chunkRows, width, dtype == null ? "|O" : dtype.numpyDescr(), compressor, dtype == null ? "\"\"" : "null",
                dtype == null ? "[{\"id\": \"vlen-utf8\"}]" : "null");
        Files.writeString(dir.resolve(".zattrs"), json(attributes), StandardCharsets.US_ASCII);
        Files.writeString(dir.resolve(".zarray"), zarray, StandardCharsets.US_ASCII);
    }

    private String zarrJson() {
        String type;
        String fill;
        if (dtype == null) {
            type = "string";
            fill = "\"\"";
        } else {
            type = switch (dtype) {
                case F32 -> "float32";
                case F64 -> "float64";
                case I32 -> "int32";
                case I64 -> "int64";
                case U8 -> "uint8";
                case C64 -> "complex64";
                case C128 -> "complex128";
            };
            fill = dtype.isComplex() ? "[0.0, 0.0]" : dtype == DType.F32 || dtype == DType.F64 ? "0.0" : "0";
        }
        String codecs = (dtype == null ? "{\"name\": \"vlen-utf8\"}" : "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}")
                + (level < 0 ? "" : ", {\"name\": \"gzip\", \"configuration\": {\"level\": " + level + "}}");
        return String.format(Locale.ROOT, """
                {
                    "zarr_format": 3,
                    "node_type": "array",
                    "shape": [%d, %d],
                    "data_type": "%s",
                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [%d, %d]}},
                    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                    "fill_value": %s,
                    "codecs": [%s],
                    "attributes": %s
                }
                """, rows, width, type, chunkRows, width, fill, codecs, json(attributes).strip().replace("\n", "\n    "));
    }

    /// `attrs` as JSON with ASCII characters only (values: strings, numbers, booleans, lists and
    /// maps of them).
    static String json(Map<String, ?> attrs) {
        return attrs.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> "    " + Json.quote(e.getKey()) + ": " + value(e.getValue()))
                .collect(Collectors.joining(",\n", "{\n", "\n}\n"));
    }

    private static String value(Object v) {
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof Map<?, ?> m) {
            return m.entrySet().stream().map(e -> Json.quote(String.valueOf(e.getKey())) + ": " + value(e.getValue()))
                    .collect(Collectors.joining(", ", "{", "}"));
        }
        if (v instanceof java.util.Collection<?> c) {
            return c.stream().map(ZarrWriter::value).collect(Collectors.joining(", ", "[", "]"));
        }
        return Json.quote(String.valueOf(v));
    }
}
