package dev.penstock.formats.parquet;

import dev.hardwood.metadata.ColumnChunk;
import dev.hardwood.metadata.ColumnMetaData;
import dev.hardwood.internal.thrift.PageHeaderReader;
import dev.hardwood.internal.thrift.ThriftCompactReader;
import dev.hardwood.metadata.RowGroup;
import dev.hardwood.schema.ColumnSchema;
import dev.penstock.io.BadInputException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/// Where a Parquet footer says each column chunk and page index lies, and where each page's
/// header says its data lies, checked against the file before any decoder starts. The page
/// walk uses Hardwood's own page-header reader (`dev.hardwood.internal.thrift`, an internal API
/// of the pinned Hardwood 1.0.1: a version change must recheck it) so that it judges a header
/// exactly as the decoder will.
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
    /// Refuses a file the decoder reads (columns `schema` of row groups `groups`) if a page of
    /// theirs, by its header, claims a size below zero or data past its column chunk's end —
    /// naming the row group, column and byte. Headers are read the decoder's way (Hardwood's own
    /// page-header reader, from the chunk's start: its dictionary page, if any, then each page
    /// in turn); a header that does not read ends that chunk's walk, left to the decoder to
    /// report. Why: Hardwood 1.0.1 waits forever for the bytes of such a page (its column worker
    /// loops in `SequentialFetchPlan.assembleFromChunks`; found by fuzzing, `overruns/`).
    static void pages(Path file, List<RowGroup> groups, List<ColumnSchema> schema) throws IOException {
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() == 0) {
                return;
            }
            MemorySegment map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            for (int g = 0; g < groups.size(); g++) {
                for (ColumnSchema s : schema) {
                    ColumnChunk chunk = groups.get(g).columns().get(s.columnIndex());
                    ColumnMetaData m = chunk.metaData();
                    if (m == null) {
                        continue; // Hardwood reports a chunk without metadata itself
                    }
                    long start = chunk.chunkStartOffset();
                    long end = Math.min(start + m.totalCompressedSize(), map.byteSize());
                    for (long at = start; at >= 0 && at < end; ) {
                        ThriftCompactReader header = new ThriftCompactReader(map.asSlice(at, end - at).asByteBuffer());
                        int size;
                        try {
                            size = PageHeaderReader.read(header).compressedPageSize();
                        } catch (IOException | RuntimeException unread) {
                            break; // the decoder says what is wrong with this header
                        }
                        long next = at + header.getBytesRead() + size;
                        if (size < 0 || next > end) {
                            throw new BadInputException(file, file + ": row group " + g + ", column '" + s.name() + "': the page at byte "
                                    + at + " claims " + size + " bytes of data, " + (size < 0 ? "a size below zero"
                                    : "past its column chunk's end at byte " + end) + ": damaged file");
                        }
                        at = next;
                    }
                }
            }
        }
    }
}
