package dev.penstock.transfer;

import dev.penstock.memory.Block;

/// Work on one chunk in device memory, run on the engine's compute stream. `chunk` is the
/// chunk's index, `data` its bytes (u8, exactly the chunk's length), valid for this call only.
@FunctionalInterface
public interface Kernel {
    void run(long chunk, Block data) throws Exception;
}
