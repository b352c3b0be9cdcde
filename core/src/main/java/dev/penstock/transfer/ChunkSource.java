package dev.penstock.transfer;

import dev.penstock.memory.Lease;
import java.lang.foreign.MemorySegment;

/// Fills a staging buffer with input bytes `[offset, offset + bytes)`. Runs on the caller's
/// thread (the host side of the pipeline): read a file, decode, or copy from pageable memory.
///
/// A source whose bytes already lie where the device copies from at full speed (page-locked
/// memory: a CUDA device's pinned allocations or memory registered with `CudaDevice.pin`; any
/// native memory for `CpuDevice`) says so with `direct`: the engine then copies from there and
/// skips the staging buffer and the host copy into it. A source that reads ahead into buffers
/// of its own hands them over with `filled`, with the same effect.
@FunctionalInterface
public interface ChunkSource {
    void read(long offset, MemorySegment staging, long bytes) throws Exception;

    /// The input bytes `[offset, offset + bytes)` already read by the source into a buffer of
    /// its own (a read-ahead buffer: native memory the device copies from at full speed, pinned
    /// on CUDA), as the buffer's first `bytes`; or null (the default) to use `direct` or `read`.
    /// The engine copies from the buffer, then closes the lease once that copy has finished or
    /// the run failed: the source's reads and the device's copies share its buffers, and the
    /// copy into a staging buffer is skipped.
    default Lease filled(long offset, long bytes) throws Exception {
        return null;
    }

    /// The input bytes `[offset, offset + bytes)` to copy to the device as they are, or null
    /// (the default) to have them `read` into a staging buffer. They must stay unchanged until
    /// the run returns.
    default MemorySegment direct(long offset, long bytes) {
        return null;
    }

    /// A source that copies from `input` (host memory) into staging.
    static ChunkSource of(MemorySegment input) {
        return (offset, staging, bytes) -> MemorySegment.copy(input, offset, staging, 0, bytes);
    }

    /// As `of(input)`, each chunk copied as `parts` page-aligned pieces at once (the common
    /// fork-join pool and the calling thread): one core's memcpy (≈ 8 GB/s here, 1.6–1.8× that
    /// with two) is slower than a PCIe 5 bus. `parts` 1 is `of(input)`.
    static ChunkSource of(MemorySegment input, int parts) {
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be at least 1, got " + parts);
        }
        if (parts == 1) {
            return of(input);
        }
        return (offset, staging, bytes) -> {
            long piece = ((bytes + parts - 1) / parts + 4095) & ~4095L;
            java.util.stream.IntStream.range(0, parts).parallel().forEach(p -> {
                long from = p * piece;
                long n = Math.min(piece, bytes - from);
                if (n > 0) {
                    MemorySegment.copy(input, offset + from, staging, from, n);
                }
            });
        };
    }

    /// A source the device copies from directly: `input` must be native memory the device
    /// reads at full speed (on CUDA, pinned or registered, else the driver stages the copy
    /// itself, synchronously).
    static ChunkSource direct(MemorySegment input) {
        if (!input.isNative()) {
            throw new IllegalArgumentException("a direct source needs native memory, got a heap segment of " + input.byteSize() + " bytes");
        }
        return new ChunkSource() {
            @Override
            public void read(long offset, MemorySegment staging, long bytes) {
                MemorySegment.copy(input, offset, staging, 0, bytes);
            }

            @Override
            public MemorySegment direct(long offset, long bytes) {
                return input.asSlice(offset, bytes);
            }
        };
    }
}
