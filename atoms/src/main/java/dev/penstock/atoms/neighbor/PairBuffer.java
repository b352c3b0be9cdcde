package dev.penstock.atoms.neighbor;

import java.util.Arrays;

/// Growable pair arrays: the list's own, and one per thread during a parallel build.
final class PairBuffer {
    int size;
    int[] first = new int[64];
    int[] second = new int[64];
    short[] code = new short[64];
    double[] shift = new double[192];

    void clear() {
        size = 0;
    }

    void add(int i, int j, short c, double sx, double sy, double sz) {
        if (size == first.length) {
            grow(2 * size);
        }
        first[size] = i;
        second[size] = j;
        code[size] = c;
        shift[3 * size] = sx;
        shift[3 * size + 1] = sy;
        shift[3 * size + 2] = sz;
        size++;
    }

    void grow(int capacity) {
        first = Arrays.copyOf(first, capacity);
        second = Arrays.copyOf(second, capacity);
        code = Arrays.copyOf(code, capacity);
        shift = Arrays.copyOf(shift, 3 * capacity);
    }

    void append(PairBuffer o) {
        if (size + o.size > first.length) {
            grow(Math.max(2 * first.length, size + o.size));
        }
        System.arraycopy(o.first, 0, first, size, o.size);
        System.arraycopy(o.second, 0, second, size, o.size);
        System.arraycopy(o.code, 0, code, size, o.size);
        System.arraycopy(o.shift, 0, shift, 3 * size, 3 * o.size);
        size += o.size;
    }
}
