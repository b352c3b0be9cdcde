package dev.penstock.formats.zarr;

import dev.penstock.memory.DType;
import dev.penstock.io.PendingOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/// Writes a Zarr group (v2, or v3 given `ZarrFormat.V3`) of arrays and subgroups beside its destination and swaps the whole group in on
/// `commit()`, so readers never see some arrays new and others old or missing.
///
/// ```
///   OUT.zarr/.zgroup  .zattrs (the group's attributes, ASCII JSON)
///   OUT.zarr/<name>/  one ZarrWriter per array (array(...)), committed with the group
/// ```
///
/// Closed without `commit()` (an error, an interrupt), it discards everything it wrote and
/// leaves the destination as it was. Threading: one thread at a time.
public final class ZarrGroup implements AutoCloseable {
    private final Path destination;
    private final PendingOutput pending;
    private final ZarrFormat format;
    private final List<ZarrWriter> arrays = new ArrayList<>();
    private boolean closed;

    private ZarrGroup(Path destination, ZarrFormat format, Map<String, ?> attributes) throws IOException {
        this.destination = destination;
        this.format = format;
        this.pending = PendingOutput.directory(destination, ZarrWriter::isZarrEntry);
        try {
            writeGroup(pending.path(), attributes);
        } catch (IOException | RuntimeException e) {
            pending.close();
            throw e;
        }
    }

    private void writeGroup(Path dir, Map<String, ?> attributes) throws IOException {
        Files.createDirectories(dir);
        if (format == ZarrFormat.V3) {
            Files.writeString(dir.resolve("zarr.json"), "{\n    \"zarr_format\": 3,\n    \"node_type\": \"group\",\n    \"attributes\": "
                    + ZarrWriter.json(attributes).strip().replace("\n", "\n    ") + "\n}\n", StandardCharsets.US_ASCII);
        } else {
            Files.writeString(dir.resolve(".zgroup"), "{\"zarr_format\": 2}\n", StandardCharsets.US_ASCII);
            Files.writeString(dir.resolve(".zattrs"), ZarrWriter.json(attributes), StandardCharsets.US_ASCII);
        }
    }

    /// A v2 group to be put at `destination`, with `attributes` (strings and numbers).
    public static ZarrGroup create(Path destination, Map<String, ?> attributes) throws IOException {
        return new ZarrGroup(destination, ZarrFormat.V2, attributes);
    }

    /// A group of `format` to be put at `destination`, with `attributes` (strings, numbers,
    /// booleans, lists and maps of them).
    public static ZarrGroup create(Path destination, ZarrFormat format, Map<String, ?> attributes) throws IOException {
        return new ZarrGroup(destination, format, attributes);
    }

    /// The format the group is written in.
    public ZarrFormat format() {
        return format;
    }

    /// A new 2-d array `name` of the group (see `ZarrWriter.open` for the arguments); `name` may
    /// be `sub/name` inside a subgroup made by `group`.
    public ZarrWriter array(String name, DType dtype, long width, int chunkRows, int level, Map<String, Object> attributes)
            throws IOException {
        ZarrWriter w = ZarrWriter.member(destination.resolve(name), pending.path(), name, format, dtype, width, chunkRows, level, attributes);
        arrays.add(w);
        return w;
    }

    /// A new array `name` of strings, one per row (`[rows, 1]`, variable-length UTF-8), filled
    /// by `ZarrWriter.appendStrings`.
    public ZarrWriter strings(String name, int chunkRows, int level, Map<String, Object> attributes) throws IOException {
        return strings(name, 1, chunkRows, level, attributes);
    }

    /// A new array `name` of `width` strings per row (`[rows, width]`).
    public ZarrWriter strings(String name, long width, int chunkRows, int level, Map<String, Object> attributes) throws IOException {
        ZarrWriter w = ZarrWriter.member(destination.resolve(name), pending.path(), name, format, null, width, chunkRows, level, attributes);
        arrays.add(w);
        return w;
    }

    /// A subgroup `name` with `attributes`, for arrays named `name/…`.
    public void group(String name, Map<String, ?> attributes) throws IOException {
        writeGroup(pending.path().resolve(name), attributes);
    }

    /// Finishes every array, syncs the group and swaps it in at the destination.
    public void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException(destination + ": group already closed");
        }
        closed = true;
        try (pending) {
            for (ZarrWriter w : arrays) {
                w.commit();
            }
            pending.commit();
        } finally {
            for (ZarrWriter w : arrays) {
                w.close();
            }
        }
    }

    /// Closes the group; without `commit()` nothing it wrote is kept.
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (pending) {
            for (ZarrWriter w : arrays) {
                w.close();
            }
        }
    }
}
