package dev.penstock.python;

import dev.penstock.formats.FeatureRows;
import dev.penstock.formats.npy.NpyFile;
import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/// A `.npy` `[rows, values]` table read by index from its mapping.
record NpyRows(NpyFile npy, Path file) implements FeatureRows {
    NpyRows {
        if (npy.shape().length != 2 || (npy.dtype() != DType.F32 && npy.dtype() != DType.F64)) {
            String what = npy.dtype().label() + java.util.Arrays.toString(npy.shape());
            npy.close();
            throw new IllegalArgumentException(file + ": rows() reads a [rows, values] float32 or float64 array, got " + what);
        }
    }

    @Override
    public long rows() {
        return npy.shape()[0];
    }

    @Override
    public int rowLength() {
        return (int) npy.shape()[1];
    }

    @Override
    public DType dtype() {
        return npy.dtype();
    }

    @Override
    public void read(long first, int count, MemorySegment dst) {
        long rowBytes = (long) rowLength() * npy.dtype().byteSize();
        MemorySegment.copy(npy.block().segment(), first * rowBytes, dst, 0, count * rowBytes);
    }

    @Override
    public void close() {
        npy.close();
    }
}
