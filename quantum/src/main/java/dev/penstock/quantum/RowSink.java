package dev.penstock.quantum;

import dev.penstock.memory.Block;

/// Where encoded states go: called in row order, on the pipeline's writer thread, with a
/// `[k, N]` block of complex states valid only during the call.
@FunctionalInterface
public interface RowSink {
    void write(Block states) throws Exception;
}
