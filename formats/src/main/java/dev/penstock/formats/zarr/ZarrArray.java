package dev.penstock.formats.zarr;

import dev.penstock.io.BadInputException;
import dev.penstock.io.Json;
import dev.penstock.memory.DType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/// One Zarr array of a directory store, read whole in C order: what zarr-python writes by default
/// and what `ZarrWriter` writes.
///
/// - Format 2 (`.zarray`): `compressor` null, `zlib`, `gzip`, `zstd`, `lz4` or `blosc` (its
///   `lz4`, `lz4hc`, `zstd` and `zlib` codecs, byte shuffle or none — the default zarr-python
///   writes is Blosc LZ4 with byte shuffle); no `filters`; `dimension_separator` `.` or `/`.
/// - Format 3 (`zarr.json`, `node_type` array): the `bytes` codec (either endian) followed by
///   `gzip`, `zstd` or `blosc`; chunk keys `default` (`c/i/j`) or `v2`.
/// - Data types: float32, float64, int32, int64, uint8, either byte order (read into native
///   order); `order` C. A chunk that is not stored holds the fill value.
///
/// Anything else — Fortran order, filters, transposes, sharding, bit shuffle, BloscLZ — is
/// refused in one line naming the array and what it holds.
public final class ZarrArray {
    private final Path dir;
    private final int format;
    private final long[] shape;
    private final long[] chunks;
    private final DType dtype;
    private final boolean bigEndian;
    private final double fill;
    private final String separator;  // between chunk indices
    private final String prefix;     // before them: "" (v2) or "c/" (v3 default keys)
    private final Codec codec;

    private ZarrArray(Path dir, int format, long[] shape, long[] chunks, DType dtype, boolean bigEndian, double fill, String separator,
                      String prefix, Codec codec) {
        this.dir = dir;
        this.format = format;
        this.shape = shape;
        this.chunks = chunks;
        this.dtype = dtype;
        this.bigEndian = bigEndian;
        this.fill = fill;
        this.separator = separator;
        this.prefix = prefix;
        this.codec = codec;
    }

    /// Whether `dir` holds a Zarr array's metadata (`.zarray`, or a `zarr.json` of an array).
    public static boolean isArray(Path dir) {
        if (Files.isRegularFile(dir.resolve(".zarray"))) {
            return true;
        }
        Path v3 = dir.resolve("zarr.json");
        try {
            return Files.isRegularFile(v3) && Files.readString(v3, StandardCharsets.UTF_8).contains("\"array\"");
        } catch (IOException e) {
            return false;
        }
    }

    /// The array stored in the directory `dir`; a `BadInputException` naming the directory and
    /// what is wrong when it is not one this class reads.
    public static ZarrArray open(Path dir) throws IOException {
        Path v2 = dir.resolve(".zarray");
        Path v3 = dir.resolve("zarr.json");
        if (Files.isRegularFile(v2)) {
            return v2(dir, meta(v2));
        }
        if (Files.isRegularFile(v3)) {
            return v3(dir, meta(v3));
        }
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString());
        }
        throw bad(dir, "not a Zarr array (no .zarray or zarr.json)");
    }

    private static Map<String, Object> meta(Path file) throws IOException {
        try {
            if (Json.parse(Files.readString(file, StandardCharsets.UTF_8)) instanceof Map<?, ?> m) {
                @SuppressWarnings("unchecked")
                Map<String, Object> typed = (Map<String, Object>) m;
                return typed;
            }
            throw new IllegalArgumentException("not a JSON object");
        } catch (IllegalArgumentException | java.nio.charset.CharacterCodingException e) {
            throw new BadInputException(file, file + ": " + e.getMessage());
        }
    }

    private static BadInputException bad(Path dir, String what) {
        return new BadInputException(dir, dir + ": " + what);
    }

    private static ZarrArray v2(Path dir, Map<String, Object> m) {
        long[] shape = longs(dir, m.get("shape"), "shape");
        long[] chunks = longs(dir, m.get("chunks"), "chunks");
        if (chunks.length != shape.length) {
            throw bad(dir, "chunks " + m.get("chunks") + " do not match shape " + m.get("shape"));
        }
        if (!"C".equals(m.getOrDefault("order", "C"))) {
            throw bad(dir, "order " + m.get("order") + " (Fortran order is not read; write the array in C order)");
        }
        if (m.get("filters") instanceof List<?> f && !f.isEmpty()) {
            throw bad(dir, "filters " + f + " are not read (write the array without filters)");
        }
        if (!(m.get("dtype") instanceof String descr) || descr.length() < 3) {
            throw bad(dir, "dtype " + m.get("dtype") + " is not a numeric type");
        }
        char order = descr.charAt(0);
        DType t = switch (descr.substring(1)) {
            case "f4" -> DType.F32;
            case "f8" -> DType.F64;
            case "i4" -> DType.I32;
            case "i8" -> DType.I64;
            case "u1" -> DType.U8;
            default -> throw bad(dir, "dtype " + descr + " is not read (float32, float64, int32, int64 and uint8 are)");
        };
        String separator = String.valueOf(m.getOrDefault("dimension_separator", "."));
        Codec codec = codec2(dir, m.get("compressor"));
        return new ZarrArray(dir, 2, shape, chunks, t, order == '>', fillValue(dir, m.get("fill_value")), separator, "", codec);
    }

    private static ZarrArray v3(Path dir, Map<String, Object> m) {
        if (!"array".equals(m.get("node_type"))) {
            throw bad(dir, "a Zarr " + m.get("node_type") + ", not an array");
        }
        long[] shape = longs(dir, m.get("shape"), "shape");
        long[] chunks;
        if (m.get("chunk_grid") instanceof Map<?, ?> grid && "regular".equals(grid.get("name"))
                && grid.get("configuration") instanceof Map<?, ?> gc) {
            chunks = longs(dir, gc.get("chunk_shape"), "chunk_shape");
        } else {
            throw bad(dir, "chunk_grid " + m.get("chunk_grid") + " is not a regular grid");
        }
        if (chunks.length != shape.length) {
            throw bad(dir, "chunk_shape does not match shape " + m.get("shape"));
        }
        DType t = switch (String.valueOf(m.get("data_type"))) {
            case "float32" -> DType.F32;
            case "float64" -> DType.F64;
            case "int32" -> DType.I32;
            case "int64" -> DType.I64;
            case "uint8" -> DType.U8;
            default -> throw bad(dir, "data_type " + m.get("data_type") + " is not read (float32, float64, int32, int64 and uint8 are)");
        };
        String separator = "/";
        String prefix = "c/";
        if (m.get("chunk_key_encoding") instanceof Map<?, ?> keys) {
            Object sep = keys.get("configuration") instanceof Map<?, ?> kc ? kc.get("separator") : null;
            if ("v2".equals(keys.get("name"))) {
                prefix = "";
                separator = sep == null ? "." : sep.toString();
            } else if (sep != null) {
                separator = sep.toString();
            }
        }
        boolean big = false;
        Codec codec = Codec.NONE;
        if (!(m.get("codecs") instanceof List<?> codecs) || codecs.isEmpty()) {
            throw bad(dir, "no codecs");
        }
        boolean seenBytes = false;
        for (Object o : codecs) {
            if (!(o instanceof Map<?, ?> c)) {
                throw bad(dir, "codec " + o + " is not an object");
            }
            Map<?, ?> conf = c.get("configuration") instanceof Map<?, ?> x ? x : Map.of();
            String name = String.valueOf(c.get("name"));
            if (name.equals("bytes")) {
                seenBytes = true;
                big = "big".equals(conf.get("endian"));
            } else if (!seenBytes) {
                throw bad(dir, "codec " + name + " before bytes is not read (no transpose or other array-to-array codecs)");
            } else if (codec != Codec.NONE) {
                throw bad(dir, "more than one compression codec (" + codecs + ")");
            } else {
                codec = switch (name) {
                    case "gzip" -> Codec.GZIP;
                    case "zstd" -> Codec.ZSTD;
                    case "blosc" -> blosc(dir, String.valueOf(conf.get("shuffle")));
                    default -> throw bad(dir, "codec " + name + " is not read (bytes, then gzip, zstd or blosc, are)");
                };
            }
        }
        if (!seenBytes) {
            throw bad(dir, "no bytes codec (sharding and other array-to-bytes codecs are not read)");
        }
        return new ZarrArray(dir, 3, shape, chunks, t, big, fillValue(dir, m.get("fill_value")), separator, prefix, codec);
    }

    private static Codec blosc(Path dir, String shuffle) {
        if (shuffle.equals("bitshuffle") || shuffle.equals("2")) {
            throw bad(dir, "Blosc with bit shuffle is not read (write it with byte shuffle or none)");
        }
        return Codec.BLOSC;
    }

    private static Codec codec2(Path dir, Object compressor) {
        if (compressor == null) {
            return Codec.NONE;
        }
        if (!(compressor instanceof Map<?, ?> c)) {
            throw bad(dir, "compressor " + compressor + " is not an object");
        }
        return switch (String.valueOf(c.get("id"))) {
            case "zlib" -> Codec.ZLIB;
            case "gzip" -> Codec.GZIP;
            case "zstd" -> Codec.ZSTD;
            case "lz4" -> Codec.LZ4;
            case "blosc" -> blosc(dir, String.valueOf(c.get("shuffle")));
            default -> throw bad(dir, "compressor " + c.get("id") + " is not read (zlib, gzip, zstd, lz4 and blosc are)");
        };
    }

    private static long[] longs(Path dir, Object v, String what) {
        if (!(v instanceof List<?> l)) {
            throw bad(dir, what + " " + v + " is not a list of integers");
        }
        long[] out = new long[l.size()];
        for (int i = 0; i < out.length; i++) {
            if (!(l.get(i) instanceof Long n) || n < 0 || what.contains("chunk") && n == 0) {
                throw bad(dir, what + " " + v + " is not a list of " + (what.contains("chunk") ? "positive" : "non-negative") + " integers");
            }
            out[i] = n;
        }
        return out;
    }

    private static double fillValue(Path dir, Object v) {
        return switch (v) {
            case null -> 0;
            case Number n -> n.doubleValue();
            case String s when s.equals("NaN") -> Double.NaN;
            case String s when s.equals("Infinity") -> Double.POSITIVE_INFINITY;
            case String s when s.equals("-Infinity") -> Double.NEGATIVE_INFINITY;
            default -> throw bad(dir, "fill_value " + v + " is not a number");
        };
    }

    /// The array's shape.
    public long[] shape() {
        return shape.clone();
    }

    /// The element type (read into native byte order).
    public DType dtype() {
        return dtype;
    }

    /// The Zarr format, 2 or 3.
    public int format() {
        return format;
    }

    /// Bytes the whole array takes.
    public long byteSize() {
        long n = dtype.byteSize();
        for (long s : shape) {
            n *= s;
        }
        return n;
    }

    /// Reads the whole array, C order, native byte order, into `dst` (at least `byteSize()`
    /// bytes). Chunks not stored hold the fill value; a chunk that does not decode fails naming it.
    public void read(MemorySegment dst) throws IOException {
        int rank = shape.length;
        int item = dtype.byteSize();
        long[] grid = new long[rank];
        long total = 1;
        for (int d = 0; d < rank; d++) {
            grid[d] = shape[d] == 0 ? 0 : (shape[d] + chunks[d] - 1) / chunks[d];
            total *= grid[d];
        }
        if (rank == 0) {
            total = 1;
        }
        long chunkElements = 1;
        for (long c : chunks) {
            chunkElements *= c;
        }
        long chunkBytes = chunkElements * item;
        if (chunkBytes > Integer.MAX_VALUE - 64) {
            throw bad(dir, "chunks of " + chunkBytes + " bytes are larger than this reader takes (2 GiB)");
        }
        long[] index = new long[rank];
        for (long k = 0; k < total; k++) {
            long rest = k;
            for (int d = rank - 1; d >= 0; d--) {
                index[d] = rest % grid[d];
                rest /= grid[d];
            }
            MemorySegment chunk = chunk(index, (int) chunkBytes);
            place(chunk, index, dst);
        }
    }

    private MemorySegment chunk(long[] index, int chunkBytes) throws IOException {
        StringBuilder key = new StringBuilder(prefix);
        for (int d = 0; d < index.length; d++) {
            key.append(d == 0 ? "" : separator).append(index[d]);
        }
        if (index.length == 0) {
            key.append(format == 2 ? "0" : "c");
        }
        Path file = dir.resolve(key.toString());
        if (!Files.isRegularFile(file)) {
            MemorySegment out = MemorySegment.ofArray(new byte[chunkBytes]);
            fillChunk(out);
            return out;
        }
        byte[] stored = Files.readAllBytes(file);
        byte[] raw;
        try {
            raw = codec.decode(stored, chunkBytes);
        } catch (IOException | RuntimeException e) {
            throw bad(dir, "chunk " + key + " does not decode as " + codec.label + ": " + e.getMessage());
        }
        if (raw.length != chunkBytes) {
            throw bad(dir, "chunk " + key + " holds " + raw.length + " bytes, a chunk is " + chunkBytes);
        }
        MemorySegment out = MemorySegment.ofArray(raw); // the decoder's own array: no second copy
        if (bigEndian != (ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN) && dtype.byteSize() > 1) {
            swap(out);
        }
        return out;
    }

    private void fillChunk(MemorySegment out) {
        long n = out.byteSize() / dtype.byteSize();
        for (long i = 0; i < n; i++) {
            switch (dtype) {
                case F32 -> out.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) fill);
                case F64 -> out.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, fill);
                case I32 -> out.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) fill);
                case I64 -> out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, (long) fill);
                default -> out.set(ValueLayout.JAVA_BYTE, i, (byte) fill);
            }
        }
    }

    private void swap(MemorySegment s) {
        long n = s.byteSize() / dtype.byteSize();
        for (long i = 0; i < n; i++) {
            switch (dtype.byteSize()) {
                case 4 -> s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, Integer.reverseBytes(s.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i)));
                default -> s.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, Long.reverseBytes(s.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i)));
            }
        }
    }

    /// Copies the part of chunk `index` inside the array into its place in `dst`, a run of the
    /// last axis at a time.
    private void place(MemorySegment chunk, long[] index, MemorySegment dst) {
        int rank = shape.length;
        int item = dtype.byteSize();
        if (rank == 0) {
            MemorySegment.copy(chunk, 0, dst, 0, item);
            return;
        }
        long[] extent = new long[rank];
        long runs = 1;
        for (int d = 0; d < rank; d++) {
            extent[d] = Math.min(chunks[d], shape[d] - index[d] * chunks[d]);
            if (d < rank - 1) {
                runs *= extent[d];
            }
        }
        long runBytes = extent[rank - 1] * item;
        long[] at = new long[rank];
        for (long r = 0; r < runs; r++) {
            long rest = r;
            for (int d = rank - 2; d >= 0; d--) {
                at[d] = rest % extent[d];
                rest /= extent[d];
            }
            long src = 0;
            long out = 0;
            for (int d = 0; d < rank - 1; d++) {
                src = src * chunks[d] + at[d];
                out = out * shape[d] + index[d] * chunks[d] + at[d];
            }
            src = src * chunks[rank - 1];
            out = out * shape[rank - 1] + index[rank - 1] * chunks[rank - 1];
            MemorySegment.copy(chunk, src * item, dst, out * item, runBytes);
        }
    }

    /// A chunk's compression.
    private enum Codec {
        NONE("raw bytes"), ZLIB("zlib"), GZIP("gzip"), ZSTD("zstd"), LZ4("numcodecs lz4"), BLOSC("blosc");

        final String label;

        Codec(String label) {
            this.label = label;
        }

        byte[] decode(byte[] in, int size) throws IOException {
            return switch (this) {
                case NONE -> in;
                case ZLIB -> inflate(in, size);
                case GZIP -> {
                    try (var z = new java.util.zip.GZIPInputStream(new ByteArrayInputStream(in))) {
                        yield z.readNBytes(size + 1); // one more than a chunk: a longer stream is refused, never read whole
                    }
                }
                case ZSTD -> com.github.luben.zstd.Zstd.decompress(in, size);
                case LZ4 -> { // numcodecs: the decompressed size (int32, little-endian), then an LZ4 block
                    int n = java.nio.ByteBuffer.wrap(in, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                    if (n != size) {
                        throw new IOException("an LZ4 frame of " + n + " bytes where the chunk holds " + size);
                    }
                    byte[] out = new byte[n];
                    net.jpountz.lz4.LZ4Factory.fastestJavaInstance().safeDecompressor().decompress(in, 4, in.length - 4, out, 0);
                    yield out;
                }
                case BLOSC -> Blosc.decompress(in, size);
            };
        }

        private static byte[] inflate(byte[] in, int size) throws IOException {
            java.util.zip.Inflater inf = new java.util.zip.Inflater();
            try {
                inf.setInput(in);
                byte[] out = new byte[size];
                int n = 0;
                while (n < size && !inf.finished()) {
                    int k = inf.inflate(out, n, size - n);
                    if (k == 0 && (inf.needsInput() || inf.needsDictionary())) {
                        throw new IOException("the zlib stream ends early");
                    }
                    n += k;
                }
                return n == size ? out : java.util.Arrays.copyOf(out, n);
            } catch (java.util.zip.DataFormatException e) {
                throw new IOException(e.getMessage(), e);
            } finally {
                inf.end();
            }
        }
    }
}
