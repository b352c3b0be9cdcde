package dev.penstock.random;

import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/// Derives independent 64-bit seeds and generators from `(seed, domain, coordinates…)`.
///
/// Every random draw in Penstock comes from a generator keyed by what it is for (for example
/// `(seed, "sample", epoch, index)`), never from a shared mutable generator, so draws are the
/// same for any thread count, load order, resume point or world size.
///
/// The derivation is a sponge over a 64-bit bijective mixer (the SplitMix64/Stafford-13
/// finaliser):
///
/// ```
///   h0 = mix(seed ^ K)
///   h  = absorb(h, c)  for every char c of domain, then absorb(h, domain.length())
///   h  = absorb(h, coords.length)                         <- length separation
///   h  = absorb(h, coord_i)  for each coordinate, whole 64 bits
///   result = mix(h + K)
///   absorb(h, x) = mix(h ^ x) + GOLDEN
/// ```
///
/// Each `absorb` is a bijection of `x` for a fixed state, so two inputs that differ only in
/// one coordinate never collide, and the length prefix separates `(b)` from `(b, 0)` — the
/// collisions of NumPy's `SeedSequence` use in the original (trailing zeros vanished, 64-bit
/// values were split into unprefixed 32-bit words) cannot happen.
public final class Seeds {
    /// The golden-ratio increment of the sponge (and of counter streams built on `mix`).
    public static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final long START = 0x5EED_0F_9E_2A_57_0CL;
    private static final RandomGeneratorFactory<RandomGenerator> FACTORY = RandomGeneratorFactory.of("L64X128MixRandom");

    /// Domains used by Penstock itself.
    public static final String SHUFFLE = "penstock.shuffle";
    /// Domain of per-sample generators `(epoch, index)`.
    public static final String SAMPLE = "penstock.sample";
    /// Domain of per-transform generators `(epoch, index, position)`.
    public static final String TRANSFORM = "penstock.transform";

    private Seeds() {
    }

    /// The 64-bit seed for `(seed, domain, coords…)`.
    public static long derive(long seed, String domain, long... coords) {
        return squeeze(absorbed(seed, domain, coords.length), coords);
    }

    /// `derive(seed, domain, a, b)` without a coordinates array (a per-system key every step, e.g.
    /// Langevin's (id, step)): the same number.
    public static long derive(long seed, String domain, long a, long b) {
        return mix(absorb(absorb(absorbed(seed, domain, 2), a), b) + START);
    }

    /// The sponge's state after `seed`, `domain` and the number of coordinates to come: what
    /// `derive` has absorbed before the coordinates, so that `squeeze(absorbed(seed, domain, n),
    /// c1 … cn) == derive(seed, domain, c1 … cn)` — a device kernel that keys draws by per-row
    /// coordinates (a system's id and step) starts from it.
    public static long absorbed(long seed, String domain, int coordinates) {
        long h = mix(seed ^ START);
        for (int i = 0; i < domain.length(); i++) {
            h = absorb(h, domain.charAt(i));
        }
        h = absorb(h, domain.length());
        return absorb(h, coordinates);
    }

    /// The rest of `derive` from a state `absorbed` gave: each coordinate, then the finaliser.
    public static long squeeze(long state, long... coords) {
        long h = state;
        for (long c : coords) {
            h = absorb(h, c);
        }
        return mix(h + START);
    }

    /// A fresh `L64X128MixRandom` (192 bits of state plus its 64-bit increment, all filled
    /// from the derived key) for `(seed, domain, coords…)`. Not thread-safe: one per use.
    public static RandomGenerator generator(long seed, String domain, long... coords) {
        long k = derive(seed, domain, coords);
        byte[] bytes = new byte[32];
        for (int w = 0; w < 4; w++) {
            long word = mix(k + (w + 1) * GOLDEN);
            for (int b = 0; b < 8; b++) {
                bytes[w * 8 + b] = (byte) (word >>> (8 * b));
            }
        }
        return FACTORY.create(bytes);
    }

    /// The SplitMix64 (Stafford variant 13) finaliser: a bijection on 64-bit values.
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static long absorb(long h, long x) {
        return mix(h ^ x) + GOLDEN;
    }
}
