package dev.penstock.stage;

import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/// The columns of a packed stage batch, in one arena (a device's, or host staging of the same
/// shape): samples are rows `0 … samples−1` of the per-sample columns, and sample k's elements
/// (a system's atoms, a walker's points) the rows `start[k] … start[k]+count[k]−1` of the
/// per-element columns, packed in sample order with no holes (a compaction keeps them so).
///
/// ```
///   per sample  (capacity S): ints[I, S]    START COUNT …(the engine's)     int32
///                             doubles[D, S] …(the engine's)                 float64
///   per element (capacity E): element c: [E, width_c] of its dtype; the owner column (if any)
///                             holds each element's sample row (int32)
/// ```
///
/// Column c of the per-sample blocks is rows `c·S … c·S+S−1` of its block, so one sample's
/// state is one row across the columns, and a compact view (`compact(n)`) packs the first n rows
/// of every column at the start of the same memory: rows picked into it go to or from the host
/// in one copy per block. The engine that uses these columns names its own (START and COUNT come
/// first); what moves rows — `copyRow`, `moveRows`, `gatherRows` (the CPU's versions; a device's
/// kernels do the same on its memory) — moves every column and knows none of them.
///
/// Threading: the blocks are plain memory; whoever writes them orders the writes (a stream).
public final class PackedColumns {
    /// int column: a sample's first element row
    public static final int START = 0;
    /// int column: a sample's elements
    public static final int COUNT = 1;

    /// A per-element column: `width` values of `dtype` per element.
    ///
    /// @param name  what it holds (error messages)
    /// @param dtype its values' type
    /// @param width values per element (≥ 1)
    public record Element(String name, DType dtype, int width) {
        public Element {
            if (width < 1) {
                throw new IllegalArgumentException("element column '" + name + "' needs a width ≥ 1, got " + width);
            }
        }
    }

    /// What a packed batch holds: `intColumns` int32 and `doubleColumns` float64 columns per sample
    /// (the ints starting with START and COUNT), and `elements` per element, of which column
    /// `owner` (or none: −1) is the int32 column of each element's sample row, which a gather
    /// writes instead of copying.
    ///
    /// @param intColumns    int32 columns per sample (≥ 2)
    /// @param doubleColumns float64 columns per sample (≥ 0)
    /// @param elements      the per-element columns
    /// @param owner         the index in `elements` of the owner column, or −1
    public record Layout(int intColumns, int doubleColumns, List<Element> elements, int owner) {
        public Layout {
            elements = List.copyOf(elements);
            if (intColumns < 2 || doubleColumns < 0) {
                throw new IllegalArgumentException("a packed layout needs at least the START and COUNT int columns and no negative count, got "
                        + intColumns + " int and " + doubleColumns + " double columns");
            }
            if (owner < -1 || owner >= elements.size()
                    || owner >= 0 && (elements.get(owner).dtype() != DType.I32 || elements.get(owner).width() != 1)) {
                throw new IllegalArgumentException("the owner column of a packed layout must be one of its int32 element columns of width 1, got "
                        + owner + " of " + elements);
            }
        }
    }

    private final Layout layout;
    private final Block ints;
    private final Block doubles;
    private final List<Block> elements;

    private PackedColumns(Layout layout, Block ints, Block doubles, List<Block> elements) {
        this.layout = layout;
        this.ints = ints;
        this.doubles = doubles;
        this.elements = elements;
    }

    /// Columns of `layout` for `samples` samples and `elements` elements, allocated in `arena`
    /// (zeroed if the arena zeroes).
    public static PackedColumns allocate(BlockArena arena, Layout layout, int samples, int elements) {
        if (samples < 1 || elements < 1) {
            throw new IllegalArgumentException("a packed batch needs room for at least one sample and one element, got " + samples
                    + " samples, " + elements + " elements");
        }
        List<Block> blocks = new ArrayList<>(layout.elements().size());
        for (Element e : layout.elements()) {
            blocks.add(e.width() == 1 ? arena.allocate(e.dtype(), elements) : arena.allocate(e.dtype(), elements, e.width()));
        }
        // a layout without double columns still gets one row of room, so every view has a block
        return new PackedColumns(layout, arena.allocate(DType.I32, layout.intColumns(), samples),
                arena.allocate(DType.F64, Math.max(1, layout.doubleColumns()), samples), List.copyOf(blocks));
    }

    /// A view of these columns whose per-sample columns hold `samples` rows packed at the start of
    /// the same memory (column c's rows at `c · samples …`), the per-element columns as they are.
    public PackedColumns compact(int samples) {
        if (samples < 1 || samples > sampleCapacity()) {
            throw new IllegalArgumentException("a compact view of " + sampleCapacity() + " sample rows needs 1 to that many, got " + samples);
        }
        return new PackedColumns(layout, ints.reshape(ints.elementCount()).slice(0, (long) layout.intColumns() * samples)
                .reshape(layout.intColumns(), samples), doubles.reshape(doubles.elementCount())
                .slice(0, doubles.shape(0) * samples).reshape(doubles.shape(0), samples), elements);
    }

    /// What these columns hold.
    public Layout layout() {
        return layout;
    }

    /// Samples these columns can hold.
    public int sampleCapacity() {
        return (int) ints.shape(1);
    }

    /// Elements these columns can hold.
    public int elementCapacity() {
        return (int) elements.getFirst().shape(0);
    }

    /// The int32 per-sample block, `[intColumns, samples]`.
    public Block ints() {
        return ints;
    }

    /// The float64 per-sample block, `[doubleColumns, samples]` (one row when the layout has none).
    public Block doubles() {
        return doubles;
    }

    /// Per-element column `c` (of `layout().elements()`): `[elements]` or `[elements, width]`.
    public Block element(int c) {
        return elements.get(c);
    }

    /// Rows `[from, to)` of int column `column`.
    public Block ints(int column, int from, int to) {
        long base = (long) column * sampleCapacity();
        return ints.reshape(ints.elementCount()).slice(base + from, base + to);
    }

    /// Rows `[from, to)` of double column `column`.
    public Block doubles(int column, int from, int to) {
        long base = (long) column * sampleCapacity();
        return doubles.reshape(doubles.elementCount()).slice(base + from, base + to);
    }

    /// Element (column, row) of the int columns (host memory only).
    public int getInt(int column, int row) {
        return ints.getInt((long) column * sampleCapacity() + row);
    }

    /// Sets element (column, row) of the int columns (host memory only).
    public void setInt(int column, int row, int value) {
        ints.setInt((long) column * sampleCapacity() + row, value);
    }

    /// Element (column, row) of the double columns (host memory only).
    public double getDouble(int column, int row) {
        return doubles.getDouble((long) column * sampleCapacity() + row);
    }

    /// Sets element (column, row) of the double columns (host memory only).
    public void setDouble(int column, int row, double value) {
        doubles.setDouble((long) column * sampleCapacity() + row, value);
    }

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;

    /// Every per-sample column of row `src` of `from` to row `dst` of `to` (host-visible memory:
    /// the CPU's kernels run this).
    public static void copyRow(PackedColumns from, int src, PackedColumns to, int dst) {
        long fromCap = from.sampleCapacity();
        long toCap = to.sampleCapacity();
        MemorySegment si = from.ints.segment();
        MemorySegment sd = from.doubles.segment();
        MemorySegment di = to.ints.segment();
        MemorySegment dd = to.doubles.segment();
        for (int col = 0; col < from.layout.intColumns(); col++) {
            di.setAtIndex(I32, col * toCap + dst, si.getAtIndex(I32, col * fromCap + src));
        }
        for (int col = 0; col < from.layout.doubleColumns(); col++) {
            dd.setAtIndex(F64, col * toCap + dst, sd.getAtIndex(F64, col * fromCap + src));
        }
    }

    /// Row `map[k]` of `from` to row k of `to` (`pick`), or row k of `from` to row `map[k]` of
    /// `to`, for every per-sample column and k in `[0, rows)`.
    public static void moveRows(PackedColumns from, PackedColumns to, MemorySegment map, int rows, boolean pick) {
        for (int k = 0; k < rows; k++) {
            int m = map.getAtIndex(I32, k);
            copyRow(from, pick ? m : k, to, pick ? k : m);
        }
    }

    /// Rows `[first, end)` of a gather of `samples` samples by `map` (`PackedRows.plan`'s format:
    /// the source row of each sample, then its first element row in `to`, then each element's
    /// source row): every per-sample column to row k of `to`, START set to its new first
    /// element, its elements moved as one run, the owner column set to k. The rows of a gather
    /// may run on different threads at once (each writes only its own rows).
    public static void gatherRows(PackedColumns from, PackedColumns to, MemorySegment map, int samples, int first, int end) {
        long fromCap = from.sampleCapacity();
        MemorySegment si = from.ints.segment();
        List<Element> columns = from.layout.elements();
        for (int k = first; k < end; k++) {
            int src = map.getAtIndex(I32, k);
            copyRow(from, src, to, k);
            int start = map.getAtIndex(I32, samples + k);
            to.ints.segment().setAtIndex(I32, START * (long) to.sampleCapacity() + k, start);
            int n = si.getAtIndex(I32, COUNT * fromCap + src);
            long a = si.getAtIndex(I32, START * fromCap + src);
            // a sample's elements are one run of rows on both sides (the map's per-element part,
            // which a device's one-thread-per-element gather reads, says the same row by row)
            for (int c = 0; c < columns.size(); c++) {
                MemorySegment dst = to.elements.get(c).segment();
                if (c == from.layout.owner()) {
                    for (int i = start; i < start + n; i++) {
                        dst.setAtIndex(I32, i, k);
                    }
                    continue;
                }
                long bytes = columns.get(c).dtype().byteSize() * columns.get(c).width();
                MemorySegment.copy(from.elements.get(c).segment(), bytes * a, dst, bytes * start, bytes * n);
            }
        }
    }
}
