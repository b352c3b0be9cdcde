package dev.penstock.formats.parquet;

import dev.hardwood.metadata.ColumnChunk;
import dev.hardwood.metadata.ColumnMetaData;
import dev.hardwood.metadata.RowGroup;
import dev.penstock.io.BadInputException;
import java.nio.file.Path;
import java.util.List;

/// Where a Parquet footer says each column chunk and page index lies, checked against the file
/// before any decoder starts.
///
/// Why: such a footer is a damaged file, and said so once, naming the row group and column,
/// before any of Hardwood's column workers (virtual threads) start on it — otherwise the first
/// of them to read past the file's end fails with a bare `readRange(…) out of bounds` while the
/// others have already taken their buffers.
final class ParquetLayout {
    private ParquetLayout() {
    }

    /// Refuses `groups` of `file` (`size` bytes) if a column chunk, its offset index or its column
    /// index lies outside the file (or has a negative length).
    static void check(Path file, long size, List<RowGroup> groups) {
        for (int g = 0; g < groups.size(); g++) {
            for (ColumnChunk chunk : groups.get(g).columns()) {
                ColumnMetaData m = chunk.metaData();
                if (m == null) {
                    continue; // Hardwood reports a chunk without metadata itself
                }
                long start = chunk.chunkStartOffset();
                within(file, size, g, m, "data", start, m.totalCompressedSize());
                if (chunk.offsetIndexOffset() != null && chunk.offsetIndexLength() != null) {
                    within(file, size, g, m, "offset index", chunk.offsetIndexOffset(), chunk.offsetIndexLength());
                }
                if (chunk.columnIndexOffset() != null && chunk.columnIndexLength() != null) {
                    within(file, size, g, m, "column index", chunk.columnIndexOffset(), chunk.columnIndexLength());
                }
            }
        }
    }

    private static String name(ColumnMetaData m) {
        return m.pathInSchema() == null ? "?" : m.pathInSchema().toString();
    }

    private static void within(Path file, long size, int group, ColumnMetaData m, String what, long offset, long length) {
        if (offset < 0 || length < 0 || length > size - offset) {
            throw new BadInputException(file, file + ": row group " + group + ", column '" + name(m) + "': its " + what
                    + " (bytes " + offset + "…" + (offset + Math.max(0, length)) + ") lies outside the file (" + size
                    + " bytes): damaged or truncated file");
        }
    }
}
