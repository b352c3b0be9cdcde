package dev.penstock.atoms.neighbor;

import java.util.Arrays;

/// Growable pair arrays: the list's own, and one per thread during a parallel build.
final class PairBuffer {
    int size;
    int[] first = new int[64];
    int[] second = new int[64];
    short[] code = new short[64];

    void clear() {
        size = 0;
    }

    void add(int i, int j, short c) {
        if (size == first.length) {
            grow(2 * size);
        }
        first[size] = i;
        second[size] = j;
        code[size] = c;
        size++;
    }

    void grow(int capacity) {
        first = Arrays.copyOf(first, capacity);
        second = Arrays.copyOf(second, capacity);
        code = Arrays.copyOf(code, capacity);
    }

    void append(PairBuffer o) {
        if (size + o.size > first.length) {
            grow(Math.max(2 * first.length, size + o.size));
        }
        System.arraycopy(o.first, 0, first, size, o.size);
        System.arraycopy(o.second, 0, second, size, o.size);
        System.arraycopy(o.code, 0, code, size, o.size);
        size += o.size;
    }
}
