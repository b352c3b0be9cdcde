package dev.penstock.data;

import java.util.random.RandomGenerator;

/// A per-sample transform applied after `consume`, on the loader's thread, enqueueing its
/// device work on `ctx.stream()`.
///
/// `rng` is derived from `(seed, epoch, sample index, transform position)`: the same draws for
/// any worker count, load order or resume point. It may be captured by enqueued work (each
/// call gets its own generator).
@FunctionalInterface
public interface Transform<D> {
    D apply(D sample, PrepContext ctx, RandomGenerator rng);
}
