package dev.penstock.data;

import dev.penstock.device.Device;
import dev.penstock.device.Stream;
import dev.penstock.memory.BlockArena;

/// What `consume`, transforms and collation may use while preparing one batch, on the
/// loader's thread.
///
/// - `stream()`: the preprocessing stream; enqueue all device work here.
/// - `arena()`: device memory that lives as long as the batch: recycled for a later batch once
///   the compute work enqueued while the batch was current has finished. Its blocks are not
///   zeroed (they may hold an earlier batch's data): write every element.
public final class PrepContext {
    private final Device device;
    private final Stream stream;
    private final BlockArena arena;
    private final int epoch;
    private final long batch;

    PrepContext(Device device, Stream stream, BlockArena arena, int epoch, long batch) {
        this.device = device;
        this.stream = stream;
        this.arena = arena;
        this.epoch = epoch;
        this.batch = batch;
    }

    /// The device batches are prepared on.
    public Device device() {
        return device;
    }

    /// The preprocessing stream: enqueue device work here.
    public Stream stream() {
        return stream;
    }

    /// Memory that lives as long as the batch (recycled, not zeroed).
    public BlockArena arena() {
        return arena;
    }

    /// The epoch.
    public int epoch() {
        return epoch;
    }

    /// Index of the batch being prepared, within its epoch.
    public long batch() {
        return batch;
    }
}
