package dev.penstock.atoms.potential;

import dev.penstock.device.Crew;
import java.util.function.IntConsumer;

/// How a model splits one system's rows (`PairPotential`, `Eam`, `Tersoff`): into a number of
/// parts fixed by the system's size alone (`count`), whatever threads then run them. Each part
/// writes only its own arrays and the model sums them in part order, so a system's numbers are
/// the same computed on one thread (the parts in turn) or on sixteen — by `Model.threads`'
/// crew, a device stage's crew (`Model.compute(system, crew)`), or none.
///
/// ```
///   atoms        < 4,000   4,000   8,000   16,000   ≥ 32,000
///   parts            1       2       4        8        16
/// ```
///
/// Part p of `count` takes rows [n·p/count, n·(p+1)/count) unless the model balances them
/// otherwise (by a rule of the system alone); a crew's thread t of T takes parts [count·t/T,
/// count·(t+1)/T), neighbours in the system (measured: 7% faster than claiming the next free part
/// on two threads, where the two threads' parts then interleave).
public final class RowParts {
    /// Rows per part, at least: the per-part arrays and their sum in part order cost some
    /// per-atom work, which smaller parts would not pay back.
    static final int ATOMS_PER_PART = 2000;
    /// The most parts: a power of two, so that 2, 4, 8 or 16 threads share them out evenly.
    static final int MAX = 16;
    /// The fewest atoms of a system computed in parts: a batch with fewer atoms has none.
    public static final int LEAST_ATOMS = 2 * ATOMS_PER_PART;

    private RowParts() {
    }

    /// The parts a system of `atoms` atoms is computed in: a power of two, 1 below 4,000 atoms.
    public static int count(int atoms) {
        int k = atoms / ATOMS_PER_PART;
        return k < 2 ? 1 : Math.min(MAX, Integer.highestOneBit(k));
    }

    /// Where part `p` of `count` over `n` rows starts (`p` = `count`: n).
    static int from(int n, int p, int count) {
        return (int) ((long) n * p / count);
    }

    /// Runs `part` for parts 0 … count − 1: on `crew`'s threads, each taking a run of consecutive
    /// parts, or (crew null or of one thread) in order on the caller; returns when all are done,
    /// rethrowing the first failure.
    static void run(Crew crew, int count, IntConsumer part) {
        if (crew == null || crew.size() == 1 || count == 1) {
            for (int p = 0; p < count; p++) {
                part.accept(p);
            }
            return;
        }
        int threads = Math.min(crew.size(), count);
        crew.run(threads, t -> {
            for (int p = from(count, t, threads); p < from(count, t + 1, threads); p++) {
                part.accept(p);
            }
        });
    }
}
