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

/// Writes a Zarr v2 group of arrays beside its destination and swaps the whole group in on
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
    private final List<ZarrWriter> arrays = new ArrayList<>();
    private boolean closed;

    private ZarrGroup(Path destination, Map<String, Object> attributes) throws IOException {
        this.destination = destination;
        this.pending = PendingOutput.directory(destination, ZarrWriter::isZarrEntry);
        try {
            Files.writeString(pending.path().resolve(".zgroup"), "{\"zarr_format\": 2}\n", StandardCharsets.US_ASCII);
            Files.writeString(pending.path().resolve(".zattrs"), ZarrWriter.json(attributes), StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            pending.close();
            throw e;
        }
    }

    /// A group to be put at `destination`, with `attributes` (strings and numbers).
    public static ZarrGroup create(Path destination, Map<String, Object> attributes) throws IOException {
        return new ZarrGroup(destination, attributes);
    }

    /// A new 2-d array `name` of the group (see `ZarrWriter.open` for the arguments).
    public ZarrWriter array(String name, DType dtype, long width, int chunkRows, int level, Map<String, Object> attributes)
            throws IOException {
        ZarrWriter w = ZarrWriter.member(destination.resolve(name), pending.path(), name, dtype, width, chunkRows, level, attributes);
        arrays.add(w);
        return w;
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
