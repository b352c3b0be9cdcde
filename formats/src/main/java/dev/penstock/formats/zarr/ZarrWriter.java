package dev.penstock.formats.zarr;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
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
/// Version 2 because Debian's zarr-python (2.13) reads only v2. The store is written beside its
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
    private final DType dtype;
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

    private ZarrWriter(Path display, Path dir, PendingOutput pending, DType dtype, long width, int chunkRows, int level,
            Map<String, Object> attributes) throws IOException {
        this.display = display;
        this.dir = dir;
        this.pending = pending;
        this.dtype = dtype;
        this.width = width;
        this.chunkRows = chunkRows;
        this.level = level;
        this.attributes = Map.copyOf(attributes);
        this.rowBytes = width * dtype.byteSize();
        this.chunk = new byte[(int) (chunkRows * rowBytes)];
        this.deflater = level < 0 ? null : new Deflater(level);
        Files.createDirectories(dir);
    }

    /// A writer of rows of `width` elements of `dtype`, `chunkRows` rows per chunk, zlib `level`
    /// (0–9, or -1 for `"compressor": null`), with `attributes` in `.zattrs` (strings and
    /// numbers), that puts the array at `dir` on `commit()`.
    public static ZarrWriter open(Path dir, DType dtype, long width, int chunkRows, int level, Map<String, Object> attributes)
            throws IOException {
        check(dir, dtype, width, chunkRows, level);
        PendingOutput pending = PendingOutput.directory(dir, ZarrWriter::isZarrEntry);
        try {
            return new ZarrWriter(dir, pending.path(), pending, dtype, width, chunkRows, level, attributes);
        } catch (IOException | RuntimeException e) {
            pending.close();
            throw e;
        }
    }

    /// An array `name` inside a group being written at `groupDir` (committed with the group).
    static ZarrWriter member(Path display, Path groupDir, String name, DType dtype, long width, int chunkRows, int level,
            Map<String, Object> attributes) throws IOException {
        check(display, dtype, width, chunkRows, level);
        return new ZarrWriter(display, groupDir.resolve(name), null, dtype, width, chunkRows, level, attributes);
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
        long chunkBytes = chunkRows * width * dtype.byteSize();
        if (chunkBytes > Integer.MAX_VALUE - 64 || chunkBytes < 0) {
            throw new IllegalArgumentException(dir + ": a chunk of " + chunkRows + " rows of " + width + " values is "
                    + chunkBytes + " bytes; use fewer rows per chunk");
        }
    }

    /// True for the files a Zarr v2 store holds (relative to the store): metadata
    /// (`.zarray`, `.zgroup`, `.zattrs`, `.zmetadata`) and chunk keys (`0.0`, `3.1`, `0/0`).
    public static boolean isZarrEntry(Path relative) {
        String name = relative.getFileName().toString();
        return name.equals(".zarray") || name.equals(".zgroup") || name.equals(".zattrs") || name.equals(".zmetadata")
                || CHUNK_KEY.matcher(name).matches();
    }

    /// Appends the rows of `block` (`[k, width]`, same dtype, contiguous).
    public void append(Block block) throws IOException {
        if (block.dtype() != dtype || block.rank() != 2 || block.shape(1) != width || !block.isContiguous()) {
            throw new IllegalArgumentException(display + ": cannot append " + block + " to a Zarr array of " + dtype.label()
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

    /// Rows appended so far.
    public long rows() {
        return rows;
    }

    private void flushChunk() throws IOException {
        if (rowsInChunk < chunkRows) {
            Arrays.fill(chunk, (int) (rowsInChunk * rowBytes), chunk.length, (byte) 0); // pad the edge chunk
        }
        Path file = dir.resolve(chunksWritten + ".0");
        if (deflater == null) {
            Files.write(file, chunk);
        } else {
            deflater.reset();
            deflater.setInput(chunk);
            deflater.finish();
            if (compressed.length < chunk.length + 1024) {
                compressed = new byte[chunk.length + chunk.length / 100 + 1024];
            }
            int n = 0;
            while (!deflater.finished()) {
                n += deflater.deflate(compressed, n, compressed.length - n);
                if (n == compressed.length) {
                    compressed = Arrays.copyOf(compressed, compressed.length * 2);
                }
            }
            try (var out = Files.newOutputStream(file)) {
                out.write(compressed, 0, n);
            }
        }
        chunksWritten++;
        rowsInChunk = 0;
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
        String compressor = level < 0 ? "null" : "{\"id\": \"zlib\", \"level\": " + level + "}";
        String zarray = String.format(Locale.ROOT, """
                {
                    "zarr_format": 2,
                    "shape": [%d, %d],
                    "chunks": [%d, %d],
                    "dtype": "%s",
                    "compressor": %s,
                    "fill_value": null,
                    "order": "C",
                    "filters": null,
                    "dimension_separator": "."
                }
                """, rows, width, chunkRows, width, dtype.numpyDescr(), compressor);
        Files.writeString(dir.resolve(".zattrs"), json(attributes), StandardCharsets.US_ASCII);
        Files.writeString(dir.resolve(".zarray"), zarray, StandardCharsets.US_ASCII);
    }

    /// `attrs` as JSON with ASCII characters only.
    static String json(Map<String, Object> attrs) {
        return attrs.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> "    " + quote(e.getKey()) + ": " + (e.getValue() instanceof Number n ? n.toString() : quote(String.valueOf(e.getValue()))))
                .collect(Collectors.joining(",\n", "{\n", "\n}\n"));
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
