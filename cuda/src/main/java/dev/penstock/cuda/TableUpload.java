package dev.penstock.cuda;

import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/// A model's constant tables onto a device (`CudaEam`, `CudaSnap`): each array copied into host
/// staging from `host`, then into a block of `device`, on a stream the caller synchronizes.
final class TableUpload {
    private TableUpload() {
    }

    /// `values` as a device block of int32, enqueued on `s`.
    static Block ints(CudaStream s, HostArena host, BlockArena device, int[] values) {
        Block h = host.allocate(DType.I32, values.length);
        MemorySegment.copy(values, 0, h.segment(), ValueLayout.JAVA_INT, 0, values.length);
        Block d = device.allocate(DType.I32, values.length);
        s.copy(h, d);
        return d;
    }

    /// `values` as a device block of float64, enqueued on `s`.
    static Block doubles(CudaStream s, HostArena host, BlockArena device, double[] values) {
        Block h = host.allocate(DType.F64, values.length);
        MemorySegment.copy(values, 0, h.segment(), ValueLayout.JAVA_DOUBLE, 0, values.length);
        Block d = device.allocate(DType.F64, values.length);
        s.copy(h, d);
        return d;
    }
}
