package dev.penstock.formats.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.io.BadInputException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/// A damaged Parquet file on which the decoder (Hardwood 1.0.1) loops forever — found by
/// `ParquetRowsFuzzTest` on 2026-12-01 (`hangs/stuck-decoder.parquet`) — is a clear error naming
/// the file after the stall bound, not a hang. Run in a child JVM: the decoder's own worker
/// thread cannot be stopped and keeps spinning until its JVM exits.
class ParquetStallTest {
    private static final Path STUCK = Path.of("src/test/resources/dev/penstock/formats/parquet/hangs/stuck-decoder.parquet");

    /// The child: reads the file to the end or to its error, prints the outcome, exits.
    public static void main(String[] args) throws Exception {
        try (ParquetRows rows = ParquetRows.open(Path.of(args[0]), List.of()); Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(Math.max(1, rows.rowLength()) * 8 * 64, 8);
            long read = 0;
            for (int k; (k = rows.next(dst, 64)) > 0; ) {
                read += k;
            }
            System.out.println("read " + read + " rows");
        } catch (BadInputException e) {
            System.out.println("bad input: " + e.getMessage());
        }
        System.exit(0); // the stuck decoder thread must not keep this JVM alive
    }

    @Test
    void aFileTheDecoderIsStuckOnIsAClearErrorNamingTheFileNotAHang() throws Exception {
        stallsWithAClearError(STUCK);
    }

    /// Found by the fuzzer on 2026-12-03 (`hangs/stuck-on-close.parquet`): the decoder's worker
    /// gets stuck so that closing its column, after the stall was reported, waited for it forever —
    /// the read's owner hung in `close()` although the error had been raised.
    @Test
    void closingAReaderWhoseDecoderIsStuckDoesNotWaitForIt() throws Exception {
        stallsWithAClearError(STUCK.resolveSibling("stuck-on-close.parquet"));
    }

    /// Saved by CI's fuzz step on 2026-12-03 (libFuzzer timeout `bbd44d11…`, kept as
    /// `hangs/stuck-in-ci-fuzz.parquet`): another input the decoder spins on. The fuzz target runs
    /// without the stall watchdog, so there it was a timeout; with the watchdog it must be the
    /// same one clear error, and the read must end.
    @Test
    void anotherInputTheDecoderSpinsOnIsTheSameClearError() throws Exception {
        stallsWithAClearError(STUCK.resolveSibling("stuck-in-ci-fuzz.parquet"));
    }

    private static void stallsWithAClearError(Path file) throws Exception {
        Path log = Files.createTempFile("parquet-stall", ".log");
        try {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dpenstock.parquet.stallSeconds=2", "-cp", System.getProperty("java.class.path"), ParquetStallTest.class.getName(),
                    file.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean ended = p.waitFor(90, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(ended).as("the read ended (output: %s)", out).isTrue();
            assertThat(out).contains("bad input: ").contains(file.getFileName().toString()).contains("did not decode within 2 s")
                    .contains("damaged file");
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
