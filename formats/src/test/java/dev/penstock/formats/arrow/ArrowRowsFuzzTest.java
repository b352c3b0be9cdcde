package dev.penstock.formats.arrow;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.penstock.io.BadInputException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/// Fuzzes the Arrow IPC reader from small files Arrow JS wrote (file and stream formats, flat
/// columns with nulls beside a string column, a fixed-size list): any file gives rows or a
/// `BadInputException` naming the file; never another exception, a read outside the file, a
/// hang or an OOM.
class ArrowRowsFuzzTest {
    @org.junit.jupiter.api.Timeout(value = 10, unit = java.util.concurrent.TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "30s")
    void anyFileGivesRowsOrAClearError(byte[] bytes) throws IOException {
        if (bytes == null) {
            return;
        }
        Path f = Files.createTempFile("fuzzed", ".arrow");
        try {
            Files.write(f, bytes);
            try (ArrowRows rows = ArrowRows.open(f, List.of()); Arena arena = Arena.ofConfined()) {
                // rows of the schema's width, as many as there are (a zero-row file may declare a
                // list of 2^25 values: a 64-row buffer of it was 16 GB, the fuzzer's first timeout;
                // one row's buffer of 2^31 values, its second: a file without rows gets none)
                if (rows.rows() == 0) {
                    return;
                }
                long width = Math.max(1, rows.rowLength());
                MemorySegment dst = arena.allocate(width * 8 * Math.min(64, rows.rows()), 8);
                for (long first = 0; first < Math.min(rows.rows(), 1 << 16); first += 64) {
                    rows.read(first, (int) Math.min(64, rows.rows() - first), dst);
                }
            } catch (BadInputException expected) {
                if (!expected.getMessage().contains(f.getFileName().toString())) {
                    throw new AssertionError("error does not name the file: " + expected.getMessage());
                }
            }
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
