package dev.penstock.data;

import dev.penstock.random.Seeds;
import java.util.Locale;
import java.util.function.LongUnaryOperator;
import java.util.random.RandomGenerator;

/// The built-in samplers: sequential, shuffled (epoch-pure permutation), sharded by rank,
/// and unbounded.
public final class Samplers {
    private Samplers() {
    }

    /// `0, 1, …, n-1` every epoch.
    public static Sampler sequential(long n) {
        requireSize(n);
        return new Sampler() {
            @Override
            public long length() {
                return n;
            }

            @Override
            public LongUnaryOperator order(int epoch) {
                return p -> p;
            }
        };
    }

    /// A permutation of `0 … n-1` that depends only on `(seed, epoch)`: a Fisher–Yates shuffle
    /// driven by `Seeds.generator(seed, SHUFFLE, epoch)`. Epoch 3's order is the same whether or
    /// not epochs 0–2 ran. Holds one `int` per sample (n < 2^31).
    public static Sampler shuffled(long n, long seed) {
        requireSize(n);
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("shuffled sampler supports up to " + Integer.MAX_VALUE + " samples, got " + n);
        }
        return new Sampler() {
            private int cachedEpoch = Integer.MIN_VALUE;
            private int[] cached;

            @Override
            public long length() {
                return n;
            }

            @Override
            public synchronized LongUnaryOperator order(int epoch) {
                if (epoch != cachedEpoch) {
                    cached = permutation((int) n, seed, epoch);
                    cachedEpoch = epoch;
                }
                int[] perm = cached;
                return p -> perm[(int) p];
            }
        };
    }

    /// Epoch `epoch`'s permutation of `0 … n-1` under `seed`.
    public static int[] permutation(int n, long seed, int epoch) {
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) {
            perm[i] = i;
        }
        RandomGenerator rng = Seeds.generator(seed, Seeds.SHUFFLE, epoch);
        for (int i = n - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        return perm;
    }

    /// Rank `rank`'s share of `inner`: positions `rank, rank + W, rank + 2W, …` of the inner
    /// order. Every rank gets the same count — `⌊n/W⌋` with `dropLast` (the tail is dropped),
    /// otherwise `⌈n/W⌉`, padding by wrapping round to the start of the epoch's order — so every
    /// rank runs the same number of batches.
    public static Sampler sharded(Sampler inner, int rank, int worldSize, boolean dropLast) {
        if (worldSize < 1) {
            throw new IllegalArgumentException("option 'worldSize' must be at least 1, got " + worldSize);
        }
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("option 'rank' must be in [0, " + worldSize + ") for worldSize " + worldSize + ", got " + rank);
        }
        long n = inner.length();
        if (n < 0) {
            throw new IllegalArgumentException("an unbounded sampler cannot be sharded by rank");
        }
        long perRank = dropLast ? n / worldSize : (n + worldSize - 1) / worldSize;
        return new Sampler() {
            @Override
            public long length() {
                return perRank;
            }

            @Override
            public LongUnaryOperator order(int epoch) {
                LongUnaryOperator base = inner.order(epoch);
                return p -> base.applyAsLong((rank + p * worldSize) % n);
            }
        };
    }

    /// `0, 1, 2, …` without end, for streaming datasets.
    public static Sampler unbounded() {
        return new Sampler() {
            @Override
            public long length() {
                return -1;
            }

            @Override
            public LongUnaryOperator order(int epoch) {
                return p -> p;
            }
        };
    }

    /// A sampler by name: `sequential` or `shuffled` (also `shuffle`, `random`).
    public static Sampler named(String name, long n, long seed) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "sequential" -> sequential(n);
            case "shuffled", "shuffle", "random" -> shuffled(n, seed);
            default -> throw new IllegalArgumentException("option 'sampler': unknown sampler '" + name
                    + "'; expected 'sequential' or 'shuffled'");
        };
    }

    private static void requireSize(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("a dataset size cannot be negative, got " + n);
        }
    }
}
