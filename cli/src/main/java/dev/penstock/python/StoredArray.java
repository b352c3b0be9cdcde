package dev.penstock.python;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/// One sample's stored array: an `.npy` file (its header read once; then one positional read
/// of its bytes per load — no mapping to make and unmap per sample, which would cost every
/// thread a handshake) or a Zarr array (its chunks decoded per load).
sealed interface StoredArray {
    Path path();

    long[] shape();

    DType dtype();

    default long bytes() {
        return Block.elementCount(shape()) * dtype().byteSize();
    }

    /// Reads the array's bytes (C order, native byte order) into `data` from its position.
    void read(java.nio.ByteBuffer data) throws java.io.IOException;

    static StoredArray open(Path p) throws java.io.IOException {
        if (java.nio.file.Files.isDirectory(p)) {
            return new ZarrStored(p, dev.penstock.formats.zarr.ZarrArray.open(p));
        }
        try (NpyFile npy = NpyFile.open(p)) {
            return new NpyStored(p, npy.header());
        }
    }
}

record NpyStored(Path path, dev.penstock.formats.npy.NpyHeader header) implements StoredArray {
    public long[] shape() {
        return header.shape();
    }

    public DType dtype() {
        return header.dtype();
    }

    public void read(java.nio.ByteBuffer data) throws java.io.IOException {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(path)) {
            long at = header.dataOffset();
            while (data.hasRemaining()) {
                int n = ch.read(data, at);
                if (n < 0) {
                    throw new java.io.EOFException("the file ends at byte " + at + ", its header promised "
                            + (header.dataOffset() + header.dataBytes()));
                }
                at += n;
            }
        }
    }
}

record ZarrStored(Path path, dev.penstock.formats.zarr.ZarrArray array) implements StoredArray {
    public long[] shape() {
        return array.shape();
    }

    public DType dtype() {
        return array.dtype();
    }

    public void read(java.nio.ByteBuffer data) throws java.io.IOException {
        array.read(MemorySegment.ofBuffer(data));
        data.position(data.limit());
    }
}
