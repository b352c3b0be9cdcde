package dev.penstock.formats.parquet;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.penstock.io.BadInputException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/// Fuzzes the Parquet wrapper: any file gives rows or a `BadInputException` naming the file;
/// never another exception, a hang or an OOM.
class ParquetRowsFuzzTest {
    static {
        // No stall watchdog while fuzzing: the decoder's worker on a stuck file cannot be stopped,
        // and the fuzzer, mutating around such a file, piled up spinning workers until it ran out
        // of memory. A stuck file is a libFuzzer timeout instead (the 10 s bound below), its
        // input saved as timeout-* (ParquetStallTest covers the watchdog on the one found).
        System.setProperty("penstock.parquet.stallSeconds", "3600");
    }

    // @Timeout: Jazzer passes it to libFuzzer as the bound on one input, so a hang becomes a
    // finding with its input saved (a decoder loop was seen on 2026-12-01: RELIABILITY.md)
    @org.junit.jupiter.api.Timeout(value = 10, unit = java.util.concurrent.TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "30s")
    void anyFileGivesRowsOrAClearError(byte[] bytes) throws IOException {
        if (bytes == null) {
            return;
        }
        Path f = Files.createTempFile("fuzzed", ".parquet");
        try {
            Files.write(f, bytes);
            try (ParquetRows rows = ParquetRows.open(f, List.of()); Arena arena = Arena.ofConfined()) {
                long width = Math.max(1, rows.rowLength());
                MemorySegment dst = arena.allocate(width * 8 * 64, 8);
                long read = 0;
                for (int k; (k = rows.next(dst, 64)) > 0; ) {
                    read += k;
                }
                if (read != rows.rows()) {
                    throw new AssertionError("read " + read + " rows of " + rows.rows());
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
