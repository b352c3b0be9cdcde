package dev.penstock.transfer;

/// The copy/compute overlap of a `TransferEngine` run: the copies' and the kernels' time
/// intervals, and how much of one set falls inside the other's union.
///
/// Time intervals [start, end) in ns, added from any thread; `overlap` is the time of these
/// that falls within the union of another set's.
final class Intervals {
    private long[] at = new long[64];
    private int n;

    synchronized void add(long start, long end) {
        if (2 * n + 2 > at.length) {
            at = java.util.Arrays.copyOf(at, 2 * at.length);
        }
        at[2 * n] = start;
        at[2 * n + 1] = end;
        n++;
    }

    /// The total length of these intervals' intersection with the union of `other`'s.
    synchronized long overlap(Intervals other) {
        long[][] mine = sorted(this);
        long[][] theirs = merged(sorted(other));
        long total = 0;
        int j = 0;
        for (long[] a : mine) {
            while (j < theirs.length && theirs[j][1] <= a[0]) {
                j++;
            }
            for (int k = j; k < theirs.length && theirs[k][0] < a[1]; k++) {
                total += Math.min(a[1], theirs[k][1]) - Math.max(a[0], theirs[k][0]);
            }
        }
        return total;
    }

    private static long[][] sorted(Intervals s) {
        long[][] out = new long[s.n][];
        synchronized (s) {
            for (int i = 0; i < s.n; i++) {
                out[i] = new long[] {s.at[2 * i], s.at[2 * i + 1]};
            }
        }
        java.util.Arrays.sort(out, java.util.Comparator.comparingLong(x -> x[0]));
        return out;
    }

    private static long[][] merged(long[][] sorted) {
        java.util.List<long[]> out = new java.util.ArrayList<>();
        for (long[] x : sorted) {
            if (!out.isEmpty() && x[0] <= out.getLast()[1]) {
                out.getLast()[1] = Math.max(out.getLast()[1], x[1]);
            } else {
                out.add(x.clone());
            }
        }
        return out.toArray(long[][]::new);
    }
}
