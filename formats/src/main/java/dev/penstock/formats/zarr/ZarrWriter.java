package dev.penstock.formats.zarr;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
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
/// Version 2 because Debian's zarr-python (2.13) reads only v2. `.zarray` is written last, on
/// `close()`, with the final shape. Threading: one thread at a time.
public final class ZarrWriter implements AutoCloseable {
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

    private ZarrWriter(Path dir, DType dtype, long width, int chunkRows, int level, Map<String, Object> attributes) throws IOException {
        if (chunkRows < 1) {
            throw new IllegalArgumentException(dir + ": option 'chunkRows' must be at least 1, got " + chunkRows);
        }
        if (level < -1 || level > 9) {
            throw new IllegalArgumentException(dir + ": zlib level must be in [0, 9] (or -1 for no compression), got " + level);
        }
        this.dir = dir;
        this.dtype = dtype;
        this.width = width;
        this.chunkRows = chunkRows;
        this.level = level;
        this.attributes = Map.copyOf(attributes);
        this.rowBytes = width * dtype.byteSize();
        long chunkBytes = chunkRows * rowBytes;
        if (chunkBytes > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException(dir + ": a chunk of " + chunkRows + " rows is " + chunkBytes + " bytes; use fewer rows per chunk");
        }
        this.chunk = new byte[(int) chunkBytes];
        this.deflater = level < 0 ? null : new Deflater(level);
        Files.createDirectories(dir);
        try (var old = Files.list(dir)) {
            for (Path p : old.toList()) {
                if (!Files.isDirectory(p)) {
                    Files.delete(p); // a rewrite must not keep chunks of an earlier, longer array
                }
            }
        }
    }

    /// A writer of rows of `width` elements of `dtype`, `chunkRows` rows per chunk, zlib `level`
    /// (0–9, or -1 for `"compressor": null`), with `attributes` in `.zattrs` (strings and numbers).
    public static ZarrWriter open(Path dir, DType dtype, long width, int chunkRows, int level, Map<String, Object> attributes)
            throws IOException {
        return new ZarrWriter(dir, dtype, width, chunkRows, level, attributes);
    }

    /// Appends the rows of `block` (`[k, width]`, same dtype, contiguous).
    public void append(Block block) throws IOException {
        if (block.dtype() != dtype || block.rank() != 2 || block.shape(1) != width || !block.isContiguous()) {
            throw new IllegalArgumentException(dir + ": cannot append " + block + " to a Zarr array of " + dtype.label()
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

    /// Writes the last (padded) chunk and the metadata with the final shape.
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (rowsInChunk > 0) {
            flushChunk();
        }
        if (deflater != null) {
            deflater.end();
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
        Files.writeString(dir.resolve(".zarray"), zarray, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(".zattrs"), json(attributes), StandardCharsets.UTF_8);
    }

    private static String json(Map<String, Object> attrs) {
        return attrs.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> "    " + quote(e.getKey()) + ": " + (e.getValue() instanceof Number n ? n.toString() : quote(String.valueOf(e.getValue()))))
                .collect(Collectors.joining(",\n", "{\n", "\n}\n"));
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
