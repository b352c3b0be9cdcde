package dev.penstock.formats.npy;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/// A `.npy` file opened for reading: its array is memory-mapped, not read into the heap, and
/// exposed as a `Block` owned by this file (valid until `close()`).
///
/// Threading: the block may be read from any thread while the file is open.
public final class NpyFile implements AutoCloseable {
    private final Path path;
    private final NpyHeader header;
    private final Arena arena;
    private final Block block;

    private NpyFile(Path path, NpyHeader header, Arena arena, MemorySegment data) {
        this.path = path;
        this.header = header;
        this.arena = arena;
        this.block = Block.wrap(data, header.dtype(), this, header.shape());
    }

    /// Opens and maps `path`.
    ///
    /// @throws NpyFormatException naming the file, the byte and what was expected, if the file is
    ///                            not a readable `.npy` array
    public static NpyFile open(Path path) throws IOException {
        dev.penstock.io.OutputSet.finishInterrupted(path); // a Penstock output a killed run was committing: finished first
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer head = ByteBuffer.allocate((int) Math.min(size, 1 << 20));
            while (head.hasRemaining() && ch.read(head) > 0) {
                // read the header region
            }
            NpyHeader header = NpyHeader.parse(path, java.util.Arrays.copyOf(head.array(), head.position()), size);
            Arena arena = Arena.ofShared();
            try {
                MemorySegment data = header.dataBytes() == 0 ? arena.allocate(1)
                        : ch.map(FileChannel.MapMode.READ_ONLY, header.dataOffset(), header.dataBytes(), arena);
                return new NpyFile(path, header, arena, data);
            } catch (IOException | RuntimeException e) {
                arena.close();
                throw e;
            }
        }
    }

    /// The file.
    public Path path() {
        return path;
    }

    /// Element type.
    public DType dtype() {
        return header.dtype();
    }

    /// Shape of the array.
    public long[] shape() {
        return header.shape().clone();
    }

    /// The header as read.
    public NpyHeader header() {
        return header;
    }

    /// The mapped array (read-only memory), valid until `close()`.
    public Block block() {
        return block;
    }

    /// Unmaps the file.
    @Override
    public void close() {
        arena.close();
    }
}
