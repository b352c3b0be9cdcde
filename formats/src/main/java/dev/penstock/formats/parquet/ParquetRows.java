package dev.penstock.formats.parquet;

import dev.hardwood.InputFile;
import dev.hardwood.metadata.PhysicalType;
import dev.hardwood.reader.ColumnReader;
import dev.hardwood.reader.ColumnReaders;
import dev.hardwood.reader.ParquetFileReader;
import dev.hardwood.schema.ColumnProjection;
import dev.hardwood.schema.ColumnSchema;
import dev.penstock.formats.DefaultColumns;
import dev.penstock.io.BadInputException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

/// Streams a Parquet file as float64 feature rows, batch by batch (the whole file is never
/// loaded): either flat numeric columns (column `c` of the selection is value `c` of every
/// row) or one list-of-numbers column (each record's list is its row; all of equal length).
///
/// Reading is sequential; `next` hands out the next rows in file order. Columns stored plain
/// and uncompressed (every page PLAIN, no dictionary) are read in place from the file's mapping
/// (`PlainPages`: a copy, no decode); anything else is decoded by Hardwood, on its own worker
/// threads. Both give the same bits.
///
/// Why one file: both read paths, the stall watchdog and the checks of damaged files share the
/// reader's row accounting (`delivered`, `rows`, the first file row), which each of them updates
/// or reports; apart, each would need the others' state. Nulls become NaN, so the encoder's bad-row policy decides what
/// happens to such rows. Threading: one reader thread at a time.
public final class ParquetRows implements AutoCloseable {
    private static final Set<PhysicalType> NUMERIC = Set.of(PhysicalType.DOUBLE, PhysicalType.FLOAT, PhysicalType.INT32,
            PhysicalType.INT64);


    private final Path file;
    private final ParquetFileReader reader;
    private final ColumnReaders columns; // null when the pages are read in place (plain)
    private final PlainPages plain;      // null when Hardwood decodes
    private final List<String> names;
    private final long rows;
    private final long firstRow; // the file row of row 0 (a selection of row groups starts later)
    private final boolean listMode; // one list<double> column: each record's list is the row
    private final int width;
    private final double[][] batch;
    private ColumnReader[] readers; // each selected column's reader, looked up by name once
    private double[][] own; // each column's converted values (types other than double, nulls as NaN)
    private double[] listOwn; // the same for the list column
    private double[] listValues;
    private int[] listOffsets;
    private int batchRows;
    private int batchPos;
    private long delivered;
    private Map<Long, String> raggedRows; // null: a ragged row fails the read
    // The stall watchdog: a damaged file can make the decoder loop forever (seen with Hardwood
    // 1.0.1: its column worker spins, the batch never comes). A batch that has not arrived after
    // `stallNs` is interrupted (the decoder then ends the batch) and reported as a damaged file.
    private final long stallNs = Math.max(1, Long.getLong("penstock.parquet.stallSeconds", 30)) * 1_000_000_000L;
    /// Whether a file the decoder reads has its pages checked at open (`ParquetLayout.pages`).
    /// Only the watchdog's test turns it off, in a child JVM of its own, to stall the decoder on
    /// purpose with a file the check would refuse.
    static volatile boolean checkPages = true;
    private volatile long batchStartedNs;   // 0: not decoding
    private volatile Thread decoding;
    private volatile boolean stalled;
    private volatile boolean closing;
    private Thread watchdog;                // virtual, started with the first batch
    private List<String> leftOut = List.of(); // numeric columns the default choice left out

    private ParquetRows(Path file, ParquetFileReader reader, List<String> names, boolean listMode, ParquetRowGroups groups,
                        boolean decoder) throws IOException {
        this.file = file;
        this.reader = reader;
        this.names = List.copyOf(names);
        this.listMode = listMode;
        this.firstRow = groups == null ? 0 : groups.firstRow();
        this.rows = groups == null ? reader.getFileMetaData().numRows() : groups.rows(reader);
        if (rows < 0) {
            throw new BadInputException(file, file + ": the file's metadata announces " + rows + " rows: damaged file");
        }
        List<dev.hardwood.metadata.RowGroup> all = reader.getFileMetaData().rowGroups();
        this.plain = listMode || decoder ? null : PlainPages.open(file, all, names.stream().map(reader.getFileSchema()::getColumn).toList(),
                groups == null ? 0 : groups.first(), groups == null ? all.size() : groups.count(), firstRow);
        if (plain == null && checkPages) {
            // the decoder waits forever for a page that runs past its chunk: refuse such a file now
            List<ColumnSchema> schema = names.stream().map(n -> listMode ? listLeaf(reader, n) : reader.getFileSchema().getColumn(n)).toList();
            int first = groups == null ? 0 : groups.first();
            ParquetLayout.pages(file, all.subList(first, first + (groups == null ? all.size() : groups.count())), schema);
        }
        ColumnProjection projection = ColumnProjection.columns(names.toArray(String[]::new));
        this.columns = plain != null ? null : groups == null ? reader.columnReaders(projection)
                : reader.buildColumnReaders(projection).filter(groups.predicate(reader)).build();
        this.batch = new double[names.size()][];
        if (listMode && groups != null) {
            this.width = groups.listWidth(); // the whole file's: its first list's length
        } else if (listMode) {
            // the row length is the length of the first list; every other list must match it
            try {
                this.width = rows == 0 || !nextBatch() || listOffsets.length < 2 ? 0 : listOffsets[1] - listOffsets[0];
            } catch (RuntimeException e) {
                // no caller will close this reader: stop its watchdog (which holds the decoder's
                // batches while it waits out its timeout) and its decoder now
                closing = true;
                java.util.concurrent.locks.LockSupport.unpark(watchdog);
                closeColumns();
                throw e;
            }
        } else {
            this.width = names.size();
        }
    }

    /// The numeric list column named `field` (its leaf is `field.…`, repeated once), or null.
    private static ColumnSchema listLeaf(ParquetFileReader reader, String field) {
        for (ColumnSchema c : reader.getFileSchema().getColumns()) {
            if (c.fieldPath().toString().startsWith(field + ".") && c.maxRepetitionLevel() == 1 && NUMERIC.contains(c.type())) {
                return c;
            }
        }
        return null;
    }

    /// Opens `file` and selects `columns` (empty: `DefaultColumns`' choice).
    ///
    /// @throws IllegalArgumentException naming the file and column when a column is missing,
    ///                                  nested or not numeric
    public static ParquetRows open(Path file, List<String> columns) throws IOException {
        return open(file, columns, null);
    }

    /// As `open`, reading only row groups `groups` (null: all); rows are numbered from the
    /// selection's first, messages name file rows.
    public static ParquetRows open(Path file, List<String> columns, ParquetRowGroups groups) throws IOException {
        return open(file, columns, groups, false);
    }

    /// As `open`; with `decoder`, Hardwood decodes even a file whose pages could be read in
    /// place (for tests that compare the two).
    static ParquetRows open(Path file, List<String> columns, ParquetRowGroups groups, boolean decoder) throws IOException {
        ParquetFileReader reader;
        try {
            reader = ParquetFileReader.open(InputFile.of(file));
        } catch (IOException | RuntimeException e) {
            long size = java.nio.file.Files.exists(file) ? java.nio.file.Files.size(file) : -1;
            throw new BadInputException(file, file + ": byte " + Math.max(0, size - 8) + ": not a readable Parquet file (expected a footer: "
                    + "metadata length and the magic 'PAR1' in the last 8 bytes): " + e.getMessage(), e);
        }
        try {
            ParquetLayout.check(file, java.nio.file.Files.size(file), reader.getFileMetaData().rowGroups());
            List<String> names = new ArrayList<>();
            if (columns.size() == 1 && listLeaf(reader, columns.getFirst()) != null) {
                return new ParquetRows(file, reader, columns, true, groups, decoder);
            }
            if (columns.isEmpty()) {
                List<String> tops = new ArrayList<>();
                List<DefaultColumns.Kind> kinds = new ArrayList<>();
                for (ColumnSchema c : reader.getFileSchema().getColumns()) {
                    String top = c.fieldPath().toString().split("\\.")[0];
                    DefaultColumns.Kind kind;
                    if (c.maxRepetitionLevel() == 0 && c.fieldPath().toString().equals(c.name()) && NUMERIC.contains(c.type())) {
                        kind = c.type() == PhysicalType.DOUBLE || c.type() == PhysicalType.FLOAT ? DefaultColumns.Kind.FLOAT
                                : DefaultColumns.Kind.INTEGER;
                    } else {
                        kind = listLeaf(reader, top) != null ? DefaultColumns.Kind.LIST : DefaultColumns.Kind.OTHER;
                    }
                    if (!tops.contains(top)) {
                        tops.add(top);
                        kinds.add(kind);
                    }
                }
                DefaultColumns.Choice choice = DefaultColumns.choose(file, tops, kinds);
                List<String> chosen = choice.picked().stream().map(tops::get).toList();
                ParquetRows rows = new ParquetRows(file, reader, chosen, choice.list(), groups, decoder);
                rows.leftOut = choice.leftOut();
                return rows;
            } else {
                for (String name : columns) {
                    ColumnSchema c;
                    try {
                        c = reader.getFileSchema().getColumn(name);
                    } catch (RuntimeException e) {
                        c = null;
                    }
                    if (c == null) {
                        throw new BadInputException(file, file + ": no column '" + name + "'; columns are "
                                + reader.getFileSchema().getColumns().stream().map(ColumnSchema::name).toList());
                    }
                    if (!NUMERIC.contains(c.type()) || c.maxRepetitionLevel() != 0) {
                        throw new BadInputException(file, file + ": column '" + name + "' is " + c.type()
                                + (c.maxRepetitionLevel() != 0 ? " (repeated)" : "") + "; expected a flat numeric column "
                                + "(double, float, int32, int64)");
                    }
                    names.add(name);
                }
            }
            return new ParquetRows(file, reader, names, false, groups, decoder);
        } catch (IOException | RuntimeException e) {
            reader.close();
            if (e instanceof BadInputException || e instanceof IOException) {
                throw e;
            }
            // the decoder tripped over its own reading of a damaged schema or footer
            throw new BadInputException(file, file + ": the Parquet schema or metadata does not read ("
                    + (e.getMessage() != null ? e.getMessage() : e.toString()) + "): damaged file", e);
        }
    }

    /// Lets a ragged row (a list of another length than the first) through as a row of NaN,
    /// recorded in `raggedRows()` with the reason, so that skip-and-report leaves it out and
    /// keeps every other row (by default a ragged row fails the read, naming it).
    public ParquetRows raggedRowsAsBad() {
        raggedRows = new ConcurrentSkipListMap<>();
        return this;
    }

    /// The ragged rows let through so far (input row → why), in row order.
    public Map<Long, String> raggedRows() {
        return raggedRows == null ? Map.of() : new TreeMap<>(raggedRows);
    }

    /// The file.
    public Path file() {
        return file;
    }

    /// Rows in the file.
    public long rows() {
        return rows;
    }

    /// Values per row: the selected columns, or the length of the list column's lists.
    public int rowLength() {
        return width;
    }

    /// The numeric columns the default choice (`DefaultColumns`) left out; none when columns
    /// were named.
    public List<String> leftOutColumns() {
        return leftOut;
    }

    /// Whether the rows are one list column's lists.
    public boolean listMode() {
        return listMode;
    }

    /// The selected columns, in row order.
    public List<String> columnNames() {
        return names;
    }

    /// Copies the next rows, up to `maxRows`, into `dst` as float64 row-major `[k, rowLength]`;
    /// returns k, 0 at the end of the file.
    public int next(MemorySegment dst, int maxRows) {
        try {
            return copyRows(dst, maxRows);
        } catch (BadInputException e) {
            throw e;
        } catch (IndexOutOfBoundsException | IllegalStateException e) {
            // offsets or value counts that disagree: only a damaged file decodes like that
            throw new BadInputException(file, file + ": row " + (firstRow + delivered) + ": the Parquet data is inconsistent (" + e.getMessage()
                    + "): damaged file", e);
        }
    }

    private int copyRows(MemorySegment dst, int maxRows) {
        if (plain != null) {
            long held = Math.min(rows, plain.rows()); // a footer and row groups that disagree: an error where they part
            if (delivered == held) {
                if (plain.rows() != rows) {
                    throw rowCountMismatch();
                }
                return 0;
            }
            int k = (int) Math.min(maxRows, held - delivered);
            plain.read(delivered, k, dst);
            delivered += k;
            return k;
        }
        if (batchPos == batchRows && !nextBatch()) {
            return 0;
        }
        int k = Math.min(maxRows, batchRows - batchPos);
        if (delivered + k > rows) {
            throw moreData();
        }
        if (listMode) {
            for (int r = 0; r < k; r++) {
                int from = listOffsets[batchPos + r];
                int len = listOffsets[batchPos + r + 1] - from;
                if (len != width) {
                    String why = "column '" + names.getFirst() + "': a list of " + len + " values, but the rows before have " + width
                            + " (every row needs the same length)";
                    if (raggedRows == null) {
                        throw new BadInputException(file, file + ": row " + (firstRow + delivered + r) + ", " + why);
                    }
                    raggedRows.put(delivered + r, why);
                    dst.asSlice((long) r * width * 8, (long) width * 8).fill((byte) 0xff); // NaN: the encoder leaves it out
                    continue;
                }
                MemorySegment.copy(listValues, from, dst, ValueLayout.JAVA_DOUBLE, (long) r * width * 8, width);
            }
            batchPos += k;
            delivered += k;
            return k;
        }
        ColumnRows.copy(batch, batchPos, width, k, dst);
        batchPos += k;
        delivered += k;
        return k;
    }

    /// Whether the pages are read in place from the file (`PlainPages`: uncompressed, PLAIN,
    /// flat columns) rather than decoded by Hardwood. Then `read` hands out any rows, from any
    /// number of threads at once.
    public boolean readsInPlace() {
        return plain != null;
    }

    /// Copies rows `[first, first + count)` (numbered from the selection's first) into `dst` as
    /// float64 row-major `[count, rowLength]`; any rows, from any number of threads at once. Only
    /// when `readsInPlace()`: Hardwood's decoder reads in order (`next`).
    public void read(long first, int count, MemorySegment dst) {
        if (plain == null) {
            throw new UnsupportedOperationException(file + " is decoded in order: read it with next()");
        }
        if (first < 0 || count < 0 || first + count > rows) {
            throw new IllegalArgumentException(file + ": rows [" + first + ", " + (first + count) + ") are not within its " + rows + " rows");
        }
        if (plain.rows() != rows) {
            throw rowCountMismatch();
        }
        try {
            plain.read(first, count, dst);
        } catch (IndexOutOfBoundsException | IllegalStateException e) {
            throw new BadInputException(file, file + ": row " + (firstRow + first) + ": the Parquet data is inconsistent (" + e.getMessage()
                    + "): damaged file", e);
        }
    }

    /// The pages hold more rows than the footer announces.
    private BadInputException moreData() {
        return new BadInputException(file, file + ": row " + rows + ": the data holds more rows than the file's metadata "
                + "announces (" + rows + "): damaged file");
    }

    /// The footer's row count and its row groups' disagree (pages read in place).
    private BadInputException rowCountMismatch() {
        return plain.rows() < rows ? shortData() : moreData();
    }

    /// The footer promised more rows than the pages hold: never a silent short read.
    private BadInputException shortData() {
        return new BadInputException(file, file + ": row " + delivered + ": the file's metadata announces " + rows
                + " rows but its data ends after " + delivered + ": damaged or truncated file");
    }

    /// Rows handed out so far.
    public long delivered() {
        return delivered;
    }

    /// The next batch from the decoder; a decoder failure on damaged data (a CRC mismatch, a
    /// page that does not decode, lists that do not match their values) is the file's fault and
    /// says so, naming the first row of the batch.
    private boolean nextBatch() {
        if (watchdog == null) {
            watchdog = Thread.ofVirtual().name("parquet-stall-watchdog").start(this::watch);
        }
        decoding = Thread.currentThread();
        batchStartedNs = System.nanoTime();
        java.util.concurrent.locks.LockSupport.unpark(watchdog);
        try {
            boolean more = decodeBatch();
            checkStall();
            return more;
        } catch (BadInputException e) {
            checkStall();
            throw e;
        } catch (RuntimeException | LinkageError e) {
            checkStall();
            String codec = missingCodec(e);
            if (codec != null) {
                throw new BadInputException(file, file + ": its pages are compressed with " + codec + ", and this build has no "
                        + "decompressor for it (" + rootMessage(e) + "); the file is not damaged", e);
            }
            throw new BadInputException(file, file + ": row " + (firstRow + delivered) + ": the Parquet data does not decode ("
                    + (e.getMessage() != null ? e.getMessage() : e.toString()) + "): damaged or truncated file", e);
        } finally {
            batchStartedNs = 0;
        }
    }

    /// The codec a decoder failure says it lacks (a codec library missing from the class path,
    /// or a codec it does not know), or null when the failure is something else.
    static String missingCodec(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (t instanceof LinkageError || t instanceof ClassNotFoundException || m.matches("(?is).*(codec|decompress|compression).*")) {
                java.util.regex.Matcher named = java.util.regex.Pattern.compile("(?i)(zstd|snappy|brotli|lz4|lzo|gzip)").matcher(m);
                if (named.find()) {
                    return named.group(1).toUpperCase(java.util.Locale.ROOT);
                }
                if (t instanceof LinkageError || t instanceof ClassNotFoundException) {
                    return "a codec whose library is missing";
                }
            }
        }
        return null;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.toString();
    }

    private void checkStall() {
        if (stalled) {
            Thread.interrupted(); // the watchdog's interrupt, not the caller's
            throw new BadInputException(file, file + ": row " + (firstRow + delivered) + ": the Parquet pages did not decode within "
                    + stallNs / 1_000_000_000L + " s (the decoder is stuck on them): damaged file");
        }
    }

    /// The watchdog: parked while no batch is decoding; interrupts a batch past `stallNs`.
    private void watch() {
        while (!closing) {
            long started = batchStartedNs;
            if (started == 0) {
                java.util.concurrent.locks.LockSupport.park(this);
                continue;
            }
            long left = started + stallNs - System.nanoTime();
            if (left > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(this, left);
            } else if (batchStartedNs == started && !stalled) {
                stalled = true;
                decoding.interrupt();
            } else {
                java.util.concurrent.locks.LockSupport.park(this);
            }
        }
    }

    private boolean decodeBatch() {
        if (!columns.nextBatch()) {
            if (delivered < rows) {
                throw shortData();
            }
            return false;
        }
        batchRows = columns.getRecordCount();
        batchPos = 0;
        if (listMode) {
            ColumnReader r = columns.getColumnReader(0);
            listOffsets = r.getLayerOffsets(0);
            if (ColumnRows.direct(r)) {
                listValues = r.getDoubles();
            } else {
                listOwn = ColumnRows.asDoubles(r, r.getValueCount(), listOwn);
                listValues = listOwn;
            }
            return true;
        }
        if (readers == null) {
            readers = new ColumnReader[names.size()];
            own = new double[names.size()][];
            for (int c = 0; c < names.size(); c++) {
                readers[c] = columns.getColumnReader(names.get(c));
            }
        }
        for (int c = 0; c < names.size(); c++) {
            if (ColumnRows.direct(readers[c])) {
                batch[c] = readers[c].getDoubles();
            } else {
                own[c] = ColumnRows.asDoubles(readers[c], batchRows, own[c]); // ours: never the reader's array
                batch[c] = own[c];
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        closing = true;
        if (watchdog != null) {
            java.util.concurrent.locks.LockSupport.unpark(watchdog);
        }
        try (reader; PlainPages p = plain) {
            closeColumns();
        }
    }

    /// Closes the decoder's columns; after a stall on a daemon thread: the stuck worker never
    /// ends and closing its column waits for it, which would leave this reader's owner stuck too.
    private void closeColumns() {
        if (columns != null && stalled) {
            Thread.ofPlatform().daemon().name("parquet-stuck-close").start(columns::close);
        } else if (columns != null) {
            columns.close();
        }
    }
}
