package dev.penstock.atoms.system;

import java.util.Arrays;
import java.util.Locale;

/// A per-atom array a system carries through a pipeline untouched: what an input file holds
/// beyond species, positions, masses, momenta and forces (ASE's `tags`, `initial_charges`,
/// `initial_magmoms`, a `move_mask`, labels), kept so that every output can write it back.
///
/// `width` values per atom, atom-major (`[a0c0, a0c1, …, a1c0, …]`), of one `Kind` — extended
/// XYZ's column types: `R` real, `I` integer, `L` logical, `S` string. Immutable.
public final class AtomArray {
    /// The type of the values (extended XYZ's `Properties` type letter).
    public enum Kind {
        REAL('R'), INT('I'), BOOL('L'), STRING('S');

        private final char letter;

        Kind(char letter) {
            this.letter = letter;
        }

        /// `R`, `I`, `L` or `S`.
        public char letter() {
            return letter;
        }

        /// The kind of an extended XYZ type letter, or null for another letter.
        public static Kind of(char letter) {
            for (Kind k : values()) {
                if (k.letter == Character.toUpperCase(letter)) {
                    return k;
                }
            }
            return null;
        }
    }

    private final Kind kind;
    private final int width;
    private final double[] reals;
    private final long[] ints;
    private final boolean[] bools;
    private final String[] strings;

    private AtomArray(Kind kind, int width, double[] reals, long[] ints, boolean[] bools, String[] strings) {
        if (width < 1) {
            throw new IllegalArgumentException("a per-atom array needs at least one value per atom, got width " + width);
        }
        this.kind = kind;
        this.width = width;
        this.reals = reals;
        this.ints = ints;
        this.bools = bools;
        this.strings = strings;
        if (length() % width != 0) {
            throw new IllegalArgumentException(length() + " values are not a whole number of atoms of width " + width);
        }
    }

    /// Reals, `width` per atom (copied).
    public static AtomArray reals(int width, double[] values) {
        return new AtomArray(Kind.REAL, width, values.clone(), null, null, null);
    }

    /// Integers, `width` per atom (copied).
    public static AtomArray ints(int width, long[] values) {
        return new AtomArray(Kind.INT, width, null, values.clone(), null, null);
    }

    /// Logicals, `width` per atom (copied).
    public static AtomArray bools(int width, boolean[] values) {
        return new AtomArray(Kind.BOOL, width, null, null, values.clone(), null);
    }

    /// Strings, `width` per atom (copied); none may be null.
    public static AtomArray strings(int width, String[] values) {
        for (String s : values) {
            java.util.Objects.requireNonNull(s, "a per-atom string");
        }
        return new AtomArray(Kind.STRING, width, null, null, null, values.clone());
    }

    /// An array of `kind` from values as `parse` gives them (Double, Long, Boolean or String).
    public static AtomArray of(Kind kind, int width, Object[] values) {
        return switch (kind) {
            case REAL -> {
                double[] a = new double[values.length];
                for (int k = 0; k < a.length; k++) {
                    a[k] = (Double) values[k];
                }
                yield reals(width, a);
            }
            case INT -> {
                long[] a = new long[values.length];
                for (int k = 0; k < a.length; k++) {
                    a[k] = (Long) values[k];
                }
                yield ints(width, a);
            }
            case BOOL -> {
                boolean[] a = new boolean[values.length];
                for (int k = 0; k < a.length; k++) {
                    a[k] = (Boolean) values[k];
                }
                yield bools(width, a);
            }
            case STRING -> strings(width, Arrays.copyOf(values, values.length, String[].class));
        };
    }

    /// The values' type.
    public Kind kind() {
        return kind;
    }

    /// Values per atom.
    public int width() {
        return width;
    }

    /// Atoms the array covers.
    public int atoms() {
        return length() / width;
    }

    /// Every value, as a count.
    public int length() {
        return switch (kind) {
            case REAL -> reals.length;
            case INT -> ints.length;
            case BOOL -> bools.length;
            case STRING -> strings.length;
        };
    }

    /// Value `k` as a real (REAL only).
    public double real(int k) {
        return reals[k];
    }

    /// Value `k` as an integer (INT only).
    public long integer(int k) {
        return ints[k];
    }

    /// Value `k` as a logical (BOOL only).
    public boolean bool(int k) {
        return bools[k];
    }

    /// Value `k` as extended XYZ writes it: the shortest exact decimal of a real, `T`/`F`.
    public String text(int k) {
        return switch (kind) {
            case REAL -> Double.toString(reals[k]);
            case INT -> Long.toString(ints[k]);
            case BOOL -> bools[k] ? "T" : "F";
            case STRING -> strings[k];
        };
    }

    /// Parses `text` as one value of `kind`, or throws `IllegalArgumentException` saying what
    /// was expected.
    public static Object parse(Kind kind, String text) {
        switch (kind) {
            case REAL:
                return Double.parseDouble(text);
            case INT:
                return Long.parseLong(text);
            case BOOL:
                String t = text.toLowerCase(Locale.ROOT);
                if (t.equals("t") || t.equals("true")) {
                    return Boolean.TRUE;
                }
                if (t.equals("f") || t.equals("false")) {
                    return Boolean.FALSE;
                }
                throw new IllegalArgumentException("expected T or F, found '" + text + "'");
            default:
                return text;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AtomArray a && a.kind == kind && a.width == width && Arrays.equals(a.reals, reals)
                && Arrays.equals(a.ints, ints) && Arrays.equals(a.bools, bools) && Arrays.equals(a.strings, strings);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + width;
    }

    @Override
    public String toString() {
        return "AtomArray[" + kind.letter + " × " + width + ", " + atoms() + " atoms]";
    }
}
