package dev.penstock.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/// A typed n-d array in off-heap memory: a `MemorySegment`, a `DType`, a shape and strides.
///
/// ```
///   shape   [2, 3]           element (i, j) lives at byte offset
///   strides [3, 1] elements  (i * strides[0] + j * strides[1]) * dtype.byteSize()
///   segment | a00 a01 a02 | a10 a11 a12 |
/// ```
///
/// A block does not own memory: its `owner` (an arena or a pool lease) does, and the block is
/// valid until the owner is closed. Views (`slice`, `reshape`) share the segment. Blocks are
/// not thread-safe for concurrent writes to the same elements; ordering between threads comes
/// from streams and events. Flat accessors (`getFloat(i)` …) take the index in C order.
public final class Block {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG;

    private final MemorySegment segment;
    private final DType dtype;
    private final long[] shape;
    private final long[] strides;
    private final long count;
    private final boolean contiguous;
    private final Object owner;

    private Block(MemorySegment segment, DType dtype, long[] shape, long[] strides, Object owner) {
        this.segment = segment;
        this.dtype = dtype;
        this.shape = shape;
        this.strides = strides;
        this.count = elementCount(shape);
        this.contiguous = Arrays.equals(strides, contiguousStrides(shape));
        this.owner = owner;
    }

    /// Wraps a segment as a C-ordered block. The segment must hold at least the block's bytes.
    public static Block wrap(MemorySegment segment, DType dtype, Object owner, long... shape) {
        long[] s = shape.clone();
        long bytes = Math.multiplyExact(elementCount(s), (long) dtype.byteSize());
        if (segment.byteSize() < bytes) {
            throw new IllegalArgumentException("segment of " + segment.byteSize()
                    + " bytes is smaller than a " + dtype.label() + Arrays.toString(s) + " block (" + bytes + " bytes)");
        }
        return new Block(segment.asSlice(0, bytes), dtype, s, contiguousStrides(s), owner);
    }

    /// Number of elements of a shape; fails on a negative extent.
    public static long elementCount(long... shape) {
        long n = 1;
        for (int d = 0; d < shape.length; d++) {
            if (shape[d] < 0) {
                throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " has a negative extent at dimension " + d);
            }
            n = Math.multiplyExact(n, shape[d]);
        }
        return n;
    }

    static long[] contiguousStrides(long[] shape) {
        long[] strides = new long[shape.length];
        long s = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            strides[d] = s;
            s *= Math.max(shape[d], 1);
        }
        return strides;
    }

    /// The element type.
    public DType dtype() {
        return dtype;
    }

    /// Number of dimensions.
    public int rank() {
        return shape.length;
    }

    /// A copy of the shape.
    public long[] shape() {
        return shape.clone();
    }

    /// Extent of dimension `dim`.
    public long shape(int dim) {
        return shape[dim];
    }

    /// A copy of the strides, in elements.
    public long[] strides() {
        return strides.clone();
    }

    /// Number of elements.
    public long elementCount() {
        return count;
    }

    /// Bytes spanned by the elements of this block (for a contiguous block, its size).
    public long byteSize() {
        return count * dtype.byteSize();
    }

    /// Whether the elements are dense in C order (strides of a fresh block).
    public boolean isContiguous() {
        return contiguous;
    }

    /// The underlying memory. For a non-contiguous view it spans from the first element on.
    public MemorySegment segment() {
        return segment;
    }

    /// The arena or lease that owns the memory.
    public Object owner() {
        return owner;
    }

    /// Rows `[from, to)` of dimension 0, sharing memory.
    public Block slice(long from, long to) {
        if (shape.length == 0 || from < 0 || to < from || to > shape[0]) {
            throw new IndexOutOfBoundsException("slice [" + from + ", " + to + ") of shape " + Arrays.toString(shape));
        }
        long[] s = shape.clone();
        s[0] = to - from;
        long offset = from * strides[0] * dtype.byteSize();
        long span = spanElements(s, strides) * dtype.byteSize();
        return new Block(segment.asSlice(offset, span), dtype, s, strides.clone(), owner);
    }

    /// The same elements under a new shape; only for contiguous blocks.
    public Block reshape(long... newShape) {
        requireContiguous("reshape");
        if (elementCount(newShape) != count) {
            throw new IllegalArgumentException("cannot reshape " + Arrays.toString(shape) + " to " + Arrays.toString(newShape));
        }
        long[] s = newShape.clone();
        return new Block(segment, dtype, s, contiguousStrides(s), owner);
    }

    private static long spanElements(long[] shape, long[] strides) {
        long last = 0;
        for (int d = 0; d < shape.length; d++) {
            if (shape[d] == 0) {
                return 0;
            }
            last += (shape[d] - 1) * strides[d];
        }
        return last + 1;
    }

    /// Byte offset of the element at the C-order flat index `i`.
    public long offsetOf(long i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("index " + i + " outside a block of " + count + " elements");
        }
        if (contiguous) {
            return i * dtype.byteSize();
        }
        long offset = 0;
        long rest = i;
        for (int d = shape.length - 1; d >= 0; d--) {
            offset += (rest % shape[d]) * strides[d];
            rest /= shape[d];
        }
        return offset * dtype.byteSize();
    }

    /// Byte offset of the element at the n-d index.
    public long offsetOf(long... index) {
        if (index.length != shape.length) {
            throw new IllegalArgumentException("index of rank " + index.length + " for a block of rank " + shape.length);
        }
        long offset = 0;
        for (int d = 0; d < index.length; d++) {
            if (index[d] < 0 || index[d] >= shape[d]) {
                throw new IndexOutOfBoundsException("index " + Arrays.toString(index) + " outside shape " + Arrays.toString(shape));
            }
            offset += index[d] * strides[d];
        }
        return offset * dtype.byteSize();
    }

    /// Element `i` (C-order flat index) of a f32 block.
    public float getFloat(long i) {
        check(DType.F32);
        return segment.get(F32, offsetOf(i));
    }

    /// Sets element `i` (C-order flat index) of a f32 block.
    public void setFloat(long i, float v) {
        check(DType.F32);
        segment.set(F32, offsetOf(i), v);
    }

    /// Element `i` (C-order flat index) of a f64 block.
    public double getDouble(long i) {
        check(DType.F64);
        return segment.get(F64, offsetOf(i));
    }

    /// Sets element `i` (C-order flat index) of a f64 block.
    public void setDouble(long i, double v) {
        check(DType.F64);
        segment.set(F64, offsetOf(i), v);
    }

    /// Element `i` (C-order flat index) of a i32 block.
    public int getInt(long i) {
        check(DType.I32);
        return segment.get(I32, offsetOf(i));
    }

    /// Sets element `i` (C-order flat index) of a i32 block.
    public void setInt(long i, int v) {
        check(DType.I32);
        segment.set(I32, offsetOf(i), v);
    }

    /// Element `i` (C-order flat index) of a i64 block.
    public long getLong(long i) {
        check(DType.I64);
        return segment.get(I64, offsetOf(i));
    }

    /// Sets element `i` (C-order flat index) of a i64 block.
    public void setLong(long i, long v) {
        check(DType.I64);
        segment.set(I64, offsetOf(i), v);
    }

    /// Element `i` (C-order flat index) of a u8 block.
    public int getUnsignedByte(long i) {
        check(DType.U8);
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offsetOf(i)));
    }

    /// Sets element `i` (C-order flat index) of a u8 block.
    public void setUnsignedByte(long i, int v) {
        check(DType.U8);
        segment.set(ValueLayout.JAVA_BYTE, offsetOf(i), (byte) v);
    }

    /// Real part of complex element `i` (c64 or c128), widened to double.
    public double getReal(long i) {
        return complexPart(i, 0);
    }

    /// Imaginary part of complex element `i` (c64 or c128), widened to double.
    public double getImag(long i) {
        return complexPart(i, 1);
    }

    /// Sets complex element `i` (c64 values are rounded to float).
    public void setComplex(long i, double re, double im) {
        long off = offsetOf(i);
        switch (dtype) {
            case C64 -> {
                segment.set(F32, off, (float) re);
                segment.set(F32, off + 4, (float) im);
            }
            case C128 -> {
                segment.set(F64, off, re);
                segment.set(F64, off + 8, im);
            }
            default -> throw wrongType("complex");
        }
    }

    private double complexPart(long i, int part) {
        long off = offsetOf(i);
        return switch (dtype) {
            case C64 -> segment.get(F32, off + 4L * part);
            case C128 -> segment.get(F64, off + 8L * part);
            default -> throw wrongType("complex");
        };
    }

    /// Copies all elements of `src` (same dtype and shape) into this block.
    public void copyFrom(Block src) {
        if (src.dtype != dtype || !Arrays.equals(src.shape, shape)) {
            throw new IllegalArgumentException("cannot copy " + src + " into " + this);
        }
        if (contiguous && src.contiguous) {
            MemorySegment.copy(src.segment, 0, segment, 0, byteSize());
            return;
        }
        int size = dtype.byteSize();
        for (long i = 0; i < count; i++) {
            MemorySegment.copy(src.segment, src.offsetOf(i), segment, offsetOf(i), size);
        }
    }

    /// Sets every byte of a contiguous block to zero.
    public void clear() {
        requireContiguous("clear");
        segment.fill((byte) 0);
    }

    private void check(DType expected) {
        if (dtype != expected) {
            throw wrongType(expected.label());
        }
    }

    private IllegalStateException wrongType(String asked) {
        return new IllegalStateException("block of " + dtype.label() + " read or written as " + asked);
    }

    private void requireContiguous(String op) {
        if (!contiguous) {
            throw new IllegalStateException(op + " needs a contiguous block, got strides " + Arrays.toString(strides));
        }
    }

    @Override
    public String toString() {
        return "Block[" + dtype.label() + Arrays.toString(shape) + (contiguous ? "" : " strides " + Arrays.toString(strides)) + "]";
    }
}
