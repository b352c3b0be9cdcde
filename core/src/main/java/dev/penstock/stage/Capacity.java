package dev.penstock.stage;

import java.util.Arrays;
import java.util.List;

/// Limits per dimension of a `Sizer` (a batch's or a buffer's room); `Long.MAX_VALUE` for none.
public final class Capacity {
    private final long[] limits;

    private Capacity(long[] limits) {
        for (int d = 0; d < limits.length; d++) {
            if (limits[d] < 1) {
                throw new IllegalArgumentException("capacity: dimension " + d + " must be at least 1, got " + limits[d]);
            }
        }
        this.limits = limits.clone();
    }

    /// Limits in the order of the sizer's dimensions.
    public static Capacity of(long... limits) {
        return new Capacity(limits);
    }

    /// No limit in any of `dimensions` dimensions.
    public static Capacity unbounded(int dimensions) {
        long[] l = new long[dimensions];
        Arrays.fill(l, Long.MAX_VALUE);
        return new Capacity(l);
    }

    /// The limit of dimension `d`.
    public long limit(int d) {
        return limits[d];
    }

    /// Number of dimensions.
    public int dimensions() {
        return limits.length;
    }

    /// Whether `sample` alone fits (false: it can never enter, however empty the room).
    public <S> boolean admits(Sizer<S> sizer, S sample) {
        for (int d = 0; d < limits.length; d++) {
            if (sizer.size(sample, d) > limits[d]) {
                return false;
            }
        }
        return true;
    }

    /// Whether `sample` fits next to `used` (per dimension).
    public <S> boolean fits(Sizer<S> sizer, S sample, long[] used) {
        for (int d = 0; d < limits.length; d++) {
            if (used[d] + sizer.size(sample, d) > limits[d]) {
                return false;
            }
        }
        return true;
    }

    /// "systems 8, atoms 4000, edges unbounded" with the sizer's names.
    public String describe(List<String> names) {
        StringBuilder sb = new StringBuilder();
        for (int d = 0; d < limits.length; d++) {
            sb.append(d == 0 ? "" : ", ").append(d < names.size() ? names.get(d) : "dimension " + d).append(' ')
                    .append(limits[d] == Long.MAX_VALUE ? "unbounded" : Long.toString(limits[d]));
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return Arrays.toString(limits);
    }
}
