package dev.penstock.stage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.ToIntFunction;

/// The host's account of a packed stage batch (`PackedColumns`): which sample each row holds and
/// its sub-stage, the rows and elements in use, the room used in every dimension of the sizer —
/// and the plan of a compaction: `plan` lays out, from a mask of leaving rows, the maps a gather
/// takes (the leavers packed into exit columns, the others, packed and in order, into the spare
/// columns), `commit` then makes the account say what the columns say after it.
///
/// ```
///   append(s)  ─▶ row size()−1, its elements the next `elementsOf(s)` element rows
///   plan(leaves, exitMap, keepMap):  map = [source row of each | its first element row | each element's source row]
///   gather(live → exits by exitMap, live → spare by keepMap) on the device, swap spare and live
///   commit()   ─▶ rows and sub-stages packed as the kept rows, the leavers' room freed
/// ```
///
/// Threading: one thread at a time (the stage's worker).
///
/// @param <S> the sample type
public final class PackedRows<S> {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;

    private final Sizer<S> sizer;
    private final Capacity capacity;
    private final ToIntFunction<S> elementsOf;
    private final int sampleCapacity;
    private final int elementCapacity;
    private final Object[] rows;
    private final int[] status;
    private final int[] counts; // each row's elements (no sample is asked again after it came in)
    private final Object[] keptRows;
    private final int[] keptStatus;
    private final int[] keptCounts;
    private final Object[] leavers;
    private final long[] used;
    private int size;
    private int elements;
    // the last plan: its counts and leavers (pending until `commit`)
    private int leaving = -1;
    private boolean committed;
    private int exitElements;
    private int keptElements;

    /// An empty account of up to `sampleCapacity` rows and `elementCapacity` element rows, room
    /// also bounded by `capacity` in `sizer`'s dimensions; `elementsOf` gives a sample's elements.
    public PackedRows(Sizer<S> sizer, Capacity capacity, int sampleCapacity, int elementCapacity, ToIntFunction<S> elementsOf) {
        if (capacity.dimensions() != sizer.dimensions().size()) {
            throw new IllegalArgumentException("capacity has " + capacity.dimensions() + " dimensions but the sample type declares "
                    + sizer.dimensions());
        }
        if (sampleCapacity < 1 || elementCapacity < 1) {
            throw new IllegalArgumentException("a packed batch needs room for at least one sample and one element, got " + sampleCapacity
                    + " and " + elementCapacity);
        }
        this.sizer = sizer;
        this.capacity = capacity;
        this.elementsOf = elementsOf;
        this.sampleCapacity = sampleCapacity;
        this.elementCapacity = elementCapacity;
        this.rows = new Object[sampleCapacity];
        this.status = new int[sampleCapacity];
        this.counts = new int[sampleCapacity];
        this.keptRows = new Object[sampleCapacity];
        this.keptStatus = new int[sampleCapacity];
        this.keptCounts = new int[sampleCapacity];
        this.leavers = new Object[sampleCapacity];
        this.used = new long[capacity.dimensions()];
    }

    /// Whether `s` fits into an empty batch (the capacity's bounds and the element rows).
    public boolean admits(S s) {
        return elementsOf.applyAsInt(s) <= elementCapacity && capacity.admits(sizer, s);
    }

    /// Whether `s` fits in the room left now.
    public boolean fits(S s) {
        return size < sampleCapacity && elements + elementsOf.applyAsInt(s) <= elementCapacity && capacity.fits(sizer, s, used);
    }

    /// Takes `s` into the next row, in sub-stage `sub`; returns its row. Its elements are the
    /// element rows from `elements()` before the call. Fails if it does not fit.
    public int append(S s, int sub) {
        if (!fits(s)) {
            throw new IllegalStateException("sample " + sizer.id(s) + " does not fit (" + capacity.describe(sizer.dimensions()) + ", "
                    + sampleCapacity + " rows, " + elementCapacity + " element rows)");
        }
        int n = elementsOf.applyAsInt(s);
        rows[size] = s;
        status[size] = sub;
        counts[size] = n;
        for (int d = 0; d < used.length; d++) {
            used[d] += sizer.size(s, d);
        }
        elements += n;
        return size++;
    }

    /// Rows in use.
    public int size() {
        return size;
    }

    /// Element rows in use.
    public int elements() {
        return elements;
    }

    /// Room used in dimension `d`.
    public long used(int d) {
        return used[d];
    }

    /// The sample of row `row`.
    @SuppressWarnings("unchecked")
    public S sample(int row) {
        return (S) rows[check(row)];
    }

    /// The sub-stage of row `row`.
    public int status(int row) {
        return status[check(row)];
    }

    /// Sets the sub-stage of row `row`.
    public void status(int row, int sub) {
        status[check(row)] = sub;
    }

    private int check(int row) {
        if (row < 0 || row >= size) {
            throw new IndexOutOfBoundsException("row " + row + " of " + size);
        }
        return row;
    }

    /// The row holding `s` (the same object), or −1.
    public int rowOf(S s) {
        for (int k = 0; k < size; k++) {
            if (rows[k] == s) {
                return k;
            }
        }
        return -1;
    }

    /// The samples, in row order (a copy).
    @SuppressWarnings("unchecked")
    public List<S> samples() {
        return (List<S>) List.of(Arrays.copyOf(rows, size));
    }

    /// The sub-stages, in row order (a copy).
    public int[] statuses() {
        return Arrays.copyOf(status, size);
    }

    /// The most elements of one sample held (0 when empty).
    public int largest() {
        int most = 0;
        for (int k = 0; k < size; k++) {
            most = Math.max(most, counts[k]);
        }
        return most;
    }

    /// Lays out the compaction that takes out the rows `leaves` marks: `exitMap` gets the
    /// leavers (their rows, in order, each its first element row among the leavers' packed
    /// elements, then each element's source row), `keepMap` the others the same way; each map
    /// needs `2·rows + elements` int32s. Returns the leavers' count; `exitElements`,
    /// `keptElements` and `leaver(x)` describe the plan until `commit`.
    public int plan(IntPredicate leaves, MemorySegment exitMap, MemorySegment keepMap) {
        int out = 0;
        for (int k = 0; k < size; k++) {
            out += leaves.test(k) ? 1 : 0;
        }
        int kept = size - out;
        int e = 0;
        int keep = 0;
        int exitAt = 0;
        int keptAt = 0;
        int start = 0; // rows are packed in order: row k's elements start after those of the rows before it
        for (int k = 0; k < size; k++) {
            boolean goes = leaves.test(k);
            int n = counts[k];
            MemorySegment map = goes ? exitMap : keepMap;
            int count = goes ? out : kept;
            int row = goes ? e++ : keep++;
            int at = goes ? exitAt : keptAt;
            map.setAtIndex(I32, row, k);
            map.setAtIndex(I32, count + row, at);
            for (int i = 0; i < n; i++) {
                map.setAtIndex(I32, 2L * count + at + i, start + i);
            }
            if (goes) {
                leavers[row] = rows[k];
                exitAt += n;
            } else {
                keptRows[row] = rows[k];
                keptStatus[row] = status[k];
                keptCounts[row] = n;
                keptAt += n;
            }
            start += n;
        }
        leaving = out;
        committed = false;
        exitElements = exitAt;
        keptElements = keptAt;
        return out;
    }

    /// Element rows of the last plan's leavers.
    public int exitElements() {
        planned();
        return exitElements;
    }

    /// Element rows of the last plan's kept rows.
    public int keptElements() {
        planned();
        return keptElements;
    }

    /// The sample of exit row `x` of the last plan (before its `commit` and after it, until the
    /// next plan or `releaseLeavers`).
    @SuppressWarnings("unchecked")
    public S leaver(int x) {
        planned();
        if (x < 0 || x >= leaving || leavers[x] == null) {
            throw new IndexOutOfBoundsException("exit row " + x + " of " + leaving);
        }
        return (S) leavers[x];
    }

    private void planned() {
        if (leaving < 0) {
            throw new IllegalStateException("no compaction planned");
        }
    }

    /// Makes the account that of the compacted columns: the kept rows packed in order with their
    /// sub-stages, the leavers' room freed (they stay readable through `leaver`).
    public void commit() {
        planned();
        if (committed) {
            throw new IllegalStateException("the compaction was committed already");
        }
        int kept = size - leaving;
        for (int x = 0; x < leaving; x++) {
            @SuppressWarnings("unchecked") S s = (S) leavers[x];
            for (int d = 0; d < used.length; d++) {
                used[d] -= sizer.size(s, d);
            }
        }
        System.arraycopy(keptRows, 0, rows, 0, kept);
        System.arraycopy(keptStatus, 0, status, 0, kept);
        System.arraycopy(keptCounts, 0, counts, 0, kept);
        Arrays.fill(rows, kept, size, null);
        Arrays.fill(keptRows, 0, kept, null);
        size = kept;
        elements = keptElements;
        committed = true;
    }

    /// Forgets the leavers of the last plan (they are the caller's now).
    public void releaseLeavers() {
        Arrays.fill(leavers, 0, Math.max(0, leaving), null);
    }
}
