package dev.penstock.quantum;

import dev.penstock.device.Stream;
import dev.penstock.memory.Block;

/// An encoding kernel that runs on a device: enqueues, on `compute`, the encoding of `count`
/// validated rows (`rows`, device memory, `[count, len]`) into `states` (device memory,
/// `[count, 2^n]`). The CUDA device's kernels implement it; `cpu(encoder)` is the same contract
/// on `CpuDevice` (device memory there is host memory), which is how the device path of the
/// pipeline is tested without a GPU.
@FunctionalInterface
public interface DeviceEncoder {
    /// Enqueues the encoding; rows were checked on the host, so it must not fail on them.
    void enqueue(Stream compute, Block rows, int count, Block states) throws Exception;

    /// `encoder` as a host op on a device whose memory is host memory.
    static DeviceEncoder cpu(Encoder encoder) {
        return (compute, rows, count, states) -> compute.launch("encode " + count + " rows",
                () -> encoder.encodeBatch(rows, states, 0, BadRowPolicy.FAIL));
    }
}
