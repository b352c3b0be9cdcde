package dev.penstock.transfer;

import java.lang.foreign.MemorySegment;

/// Fills a staging buffer with input bytes `[offset, offset + bytes)`. Runs on the caller's
/// thread (the host side of the pipeline): read a file, decode, or copy from pageable memory.
@FunctionalInterface
public interface ChunkSource {
    void read(long offset, MemorySegment staging, long bytes) throws Exception;

    /// A source that copies from `input` (host memory).
    static ChunkSource of(MemorySegment input) {
        return (offset, staging, bytes) -> MemorySegment.copy(input, offset, staging, 0, bytes);
    }
}
