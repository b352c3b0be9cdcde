package dev.penstock.data;

import java.util.function.LongUnaryOperator;

/// The order in which one epoch visits samples: `order(epoch)` maps a position
/// `0 … length()-1` to a sample index. Pure: the same `(sampler, epoch)` always gives the same
/// order, which is what makes shuffles reproducible and resume exact.
public interface Sampler {

    /// Positions per epoch (for this rank), or -1 for an unbounded sampler.
    long length();

    /// Position → sample index for `epoch`.
    LongUnaryOperator order(int epoch);
}
