package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// Full neighbour lists (both directions of every pair, each with its image shift) made from a
/// model's half lists, for the three-body potentials: rebuilt only when the half list is.
///
/// ```
///   half pair (i, j, shift s)  →  i: (j, +s, half = true)   j: (i, −s, half = false)
/// ```
///
/// Threading: lists of different systems may be used from different threads at once.
final class FullLists {
    private final NeighborLists half;
    private final Map<Long, Full> lists = new ConcurrentHashMap<>();

    FullLists(NeighborLists half) {
        this.half = half;
    }

    /// Atom i's neighbours are entries `start[i] … start[i+1]−1`: `nbr`, `shift` (3 per entry) and
    /// whether the entry is the half list's direction of its pair.
    record Full(long builds, long shifts, int[] start, int[] nbr, double[] shift, boolean[] half) {
    }

    /// System `s`'s full list, brought up to date with its half list.
    Full of(AtomicSystem s) {
        return of(s, null);
    }

    /// `of(s)`, the half list's cell scan split over `crew` when it is given.
    Full of(AtomicSystem s, Crew crew) {
        NeighborList list = half.current(s, crew);
        Full have = lists.get(s.id());
        if (have != null && have.builds() == list.builds() && have.shifts() == list.shiftVersion()) {
            return have;
        }
        int n = s.atoms();
        int[] start = list.start();
        int[] end = list.end();
        int[] second = list.second();
        short[] code = list.imageCodes();
        double[] table = list.imageShifts();
        int[] count = new int[n + 1];
        for (int i = 0; i < n; i++) {
            for (int q = start[i]; q < end[i]; q++) {
                count[i + 1]++;
                count[second[q] + 1]++;
            }
        }
        for (int i = 0; i < n; i++) {
            count[i + 1] += count[i];
        }
        int total = count[n];
        int[] nbr = new int[total];
        double[] shift = new double[3 * total];
        boolean[] isHalf = new boolean[total];
        int[] fill = Arrays.copyOf(count, n);
        for (int i = 0; i < n; i++) {
            for (int q = start[i]; q < end[i]; q++) {
                int j = second[q];
                int c = 3 * code[q];
                int a = fill[i]++;
                nbr[a] = j;
                shift[3 * a] = table[c];
                shift[3 * a + 1] = table[c + 1];
                shift[3 * a + 2] = table[c + 2];
                isHalf[a] = true;
                int b = fill[j]++;
                nbr[b] = i;
                shift[3 * b] = -table[c];
                shift[3 * b + 1] = -table[c + 1];
                shift[3 * b + 2] = -table[c + 2];
            }
        }
        Full made = new Full(list.builds(), list.shiftVersion(), count, nbr, shift, isHalf);
        lists.put(s.id(), made);
        return made;
    }

    void forget(long id) {
        lists.remove(id);
    }
}
