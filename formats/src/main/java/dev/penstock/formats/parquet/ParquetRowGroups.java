package dev.penstock.formats.parquet;

import dev.hardwood.InputFile;
import dev.hardwood.reader.ParquetFileReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/// Row groups `first … first + count - 1` of a Parquet file, read on their own (a Flink encode
/// task's range, `ParquetRows.open(file, columns, groups)`): `firstRow` is the file row they
/// start at (error messages name file rows), and a list column's rows must be `listWidth` long,
/// as in the whole file.
///
/// @param first     the first row group
/// @param count     how many
/// @param firstRow  the file row of the first group's first row
/// @param listWidth values per row of a list column (the whole file's), ignored for columns
public record ParquetRowGroups(int first, int count, long firstRow, int listWidth) implements java.io.Serializable {
    /// Rows in these groups (refused when they are not all in the file).
    long rows(ParquetFileReader reader) {
        List<dev.hardwood.metadata.RowGroup> all = reader.getFileMetaData().rowGroups();
        if (first < 0 || count < 0 || first + count > all.size()) {
            throw new IllegalArgumentException("row groups " + first + "…" + (first + count - 1) + " of " + all.size());
        }
        long n = 0;
        for (int g = first; g < first + count; g++) {
            n += all.get(g).numRows();
        }
        return n;
    }

    /// Exactly these groups: the bytes from the first's start to the next group's (each
    /// group is selected by where its middle lies).
    dev.hardwood.reader.RowGroupPredicate predicate(ParquetFileReader reader) {
        List<dev.hardwood.metadata.RowGroup> all = reader.getFileMetaData().rowGroups();
        long start = count == 0 ? Long.MAX_VALUE - 1 : start(all.get(first));
        long end = first + count < all.size() ? start(all.get(first + count)) : Long.MAX_VALUE;
        return dev.hardwood.reader.RowGroupPredicate.byteRange(start, Math.max(start, end));
    }

    private static long start(dev.hardwood.metadata.RowGroup g) {
        return g.columns().stream().mapToLong(dev.hardwood.metadata.ColumnChunk::chunkStartOffset).min().orElse(0);
    }

    /// The rows of each row group of `file`, in order.
    public static long[] rowsOf(Path file) throws IOException {
        try (ParquetFileReader r = ParquetFileReader.open(InputFile.of(file))) {
            return r.getFileMetaData().rowGroups().stream().mapToLong(dev.hardwood.metadata.RowGroup::numRows).toArray();
        }
    }
}
