package dev.penstock.memory;

/// Owns the memory of the blocks it allocates; closing it frees them all at once.
///
/// A device supplies its own arena kind (host off-heap memory for `CpuDevice`, device memory
/// for CUDA). Blocks must not be used after their arena is closed.
public interface BlockArena extends AutoCloseable {

    /// Allocates a C-ordered block of the given type and shape. `HostArena` zeroes it; arenas
    /// that recycle memory (a loader's batch arenas) say so and may hand out stale contents.
    Block allocate(DType dtype, long... shape);

    /// Bytes currently allocated by this arena.
    long allocatedBytes();

    /// A name for messages and leak reports.
    String name();

    /// Frees every block of this arena. Idempotent.
    @Override
    void close();
}
