package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.testing.Python;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The "nothing lost" contracts of `penstock encode`, run as a user would: inputs never
/// overwritten, outputs complete or absent (the previous one kept), every skipped row mapped,
/// one line for every user error.
class NothingLostTest {
    @TempDir
    Path dir;

    /// `rows` rows of `len` values; row r, value j = sin(j + r) + 2, except NaN in each row of `nanRows`.
    static Path rows(Path file, int rows, int len, long... nanRows) throws IOException {
        try (HostArena arena = Memory.newConfinedArena("test"); NpyWriter w = NpyWriter.open(file, DType.F64, len)) {
            Block b = arena.allocate(DType.F64, rows, len);
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < len; j++) {
                    b.setDouble((long) r * len + j, Math.sin(j + r) + 2);
                }
            }
            for (long r : nanRows) {
                b.setDouble(r * len, Double.NaN);
            }
            w.append(b);
            w.commit();
        }
        return file;
    }

    static List<String> temporaries(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.map(p -> p.getFileName().toString()).filter(n -> n.contains(".penstock-")).toList();
        }
    }

    /// stderr lines that are not the JDK's incubator notice.
    static List<String> errorLines(String out) {
        return out.lines().filter(l -> !l.startsWith("WARNING: Using incubator")).filter(l -> l.startsWith("penstock")
                || l.startsWith("\tat ") || l.contains("Exception")).toList();
    }

    @Test
    void encodingOverItsOwnInputIsRefusedAndTheInputIsUnchanged() throws IOException {
        Path in = rows(dir.resolve("x.npy"), 5, 8);
        byte[] before = Files.readAllBytes(in);
        String out = MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3",
                "--out", in.toString());
        assertThat(out).contains("option '--out'").contains("is the input");
        assertThat(Files.readAllBytes(in)).isEqualTo(before);
        Path link = Files.createSymbolicLink(dir.resolve("link.npy"), in);
        MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", link.toString());
        assertThat(Files.readAllBytes(in)).isEqualTo(before);
    }

    @Test
    void exampleNeverOverwritesAFileTheUserHas() throws IOException {
        Path mine = Files.writeString(dir.resolve("rows.parquet"), "PAR1 my data PAR1");
        String out = MainTest.run(ExitCodes.USAGE, "encode", mine.toString(), "--example", "10", "--encoding", "angle",
                "--qubits", "2", "--out", dir.resolve("s.npy").toString());
        assertThat(out).contains("INPUT");
        Path npy = rows(dir.resolve("rows.npy"), 3, 4);
        byte[] before = Files.readAllBytes(npy);
        MainTest.run(ExitCodes.USAGE, "encode", npy.toString(), "--example", "10", "--encoding", "angle", "--qubits", "2",
                "--out", dir.resolve("s.npy").toString());
        assertThat(mine).hasContent("PAR1 my data PAR1");
        assertThat(Files.readAllBytes(npy)).isEqualTo(before);
        assertThat(dir.resolve("s.npy")).doesNotExist();
    }

    @Test
    void aFailingEncodeLeavesThePreviousOutputAsItWasAndNothingBeside() throws IOException {
        Path good = rows(dir.resolve("good.npy"), 16, 8);
        Path out = dir.resolve("states.npy");
        MainTest.run(0, "encode", good.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", out.toString());
        byte[] previous = Files.readAllBytes(out);
        byte[] previousRows = Files.readAllBytes(dir.resolve("states.npy.rows.npy"));
        Path bad = rows(dir.resolve("bad.npy"), 24, 8, 12);
        String msg = MainTest.run(ExitCodes.BAD_INPUT, "encode", bad.toString(), "--encoding", "amplitude", "--qubits", "3",
                "--out", out.toString(), "--rows-per-chunk", "4");
        assertThat(msg).contains("row 12").contains("left as it was");
        assertThat(Files.readAllBytes(out)).isEqualTo(previous);
        assertThat(Files.readAllBytes(dir.resolve("states.npy.rows.npy"))).isEqualTo(previousRows);
        assertThat(temporaries(dir)).isEmpty();
    }

    @Test
    void skipModeWritesTheInputRowOfEveryStateAndEverySkippedRowWithItsReason() throws IOException {
        long[] bad = new long[30];
        for (int i = 0; i < bad.length; i++) {
            bad[i] = 3 * i + 1;
        }
        Path in = rows(dir.resolve("rows.npy"), 100, 8, bad);
        Path out = dir.resolve("s.npy");
        String msg = MainTest.run(0, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", out.toString(),
                "--on-bad-row", "skip", "--rows-per-chunk", "7");
        assertThat(msg).contains("skipped 30 bad rows").contains("and 10 more");
        try (NpyFile states = NpyFile.open(out); NpyFile kept = NpyFile.open(dir.resolve("s.npy.rows.npy"))) {
            assertThat(states.shape()).containsExactly(70, 8);
            assertThat(kept.dtype()).isEqualTo(DType.I64);
            assertThat(kept.shape()).containsExactly(70);
            List<Long> expected = java.util.stream.LongStream.range(0, 100).filter(r -> r % 3 != 1 || r > 88).boxed().toList();
            List<Long> got = java.util.stream.LongStream.range(0, 70).map(i -> kept.block().getLong(i)).boxed().toList();
            assertThat(got).isEqualTo(expected);
        }
        List<String> skipped = Files.readAllLines(dir.resolve("s.npy.skipped.tsv"));
        assertThat(skipped).hasSize(31);
        assertThat(skipped.get(0)).isEqualTo("row\treason");
        assertThat(skipped.get(30)).startsWith("88\t").containsIgnoringCase("nan");
    }

    @Test
    void rowsWithNoValuesAreRefusedNotReportedAsSuccess() throws IOException {
        Path in = dir.resolve("empty-rows.npy");
        try (NpyWriter w = NpyWriter.open(in, DType.F64, 0)) {
            w.append(java.lang.foreign.MemorySegment.ofArray(new byte[0]), 5);
            w.commit();
        }
        String out = MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3",
                "--out", dir.resolve("s.npy").toString());
        assertThat(out).contains("no values");
        assertThat(dir.resolve("s.npy")).doesNotExist();
    }

    @Test
    void aZarrStoreHoldingTheUsersFilesIsRefusedAndTheFilesKept() throws IOException {
        Path in = rows(dir.resolve("rows.npy"), 10, 8);
        Path store = Files.createDirectories(dir.resolve("s.zarr"));
        Files.writeString(store.resolve("README.txt"), "my notes");
        String out = MainTest.run(ExitCodes.OUTPUT_FAILED, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3",
                "--out", store.toString());
        assertThat(out).contains("README.txt");
        assertThat(store.resolve("README.txt")).hasContent("my notes");
    }

    @Test
    void aRewrittenZarrStoreIsReplacedWholeWithAsciiMetadata() throws Exception {
        Path in = rows(dir.resolve("lignes-été.npy"), 40, 8);
        Path store = dir.resolve("s.zarr");
        MainTest.run(0, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", store.toString(),
                "--rows-per-chunk", "8");
        assertThat(store.resolve("states/4.0")).exists();
        Path shorter = rows(dir.resolve("short.npy"), 10, 8);
        MainTest.run(0, "encode", shorter.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", store.toString(),
                "--rows-per-chunk", "8");
        assertThat(store.resolve("states/4.0")).doesNotExist(); // no chunk of the longer array survives
        for (Path meta : List.of(store.resolve(".zattrs"), store.resolve("states/.zarray"), store.resolve("rows/.zattrs"))) {
            byte[] b = Files.readAllBytes(meta);
            for (byte x : b) {
                assertThat(x & 0xff).as(meta + " is ASCII").isLessThan(0x80);
            }
        }
        assumeTrue(Python.required() || Python.has("zarr"), "zarr-python is not installed");
        Python.Result r = Python.run("""
                import sys, zarr
                g = zarr.open(sys.argv[1], mode='r')
                print(g['states'].shape, list(g['rows'][:, 0]), g.attrs['source'])
                """, store.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("(10, 8)").contains("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]").contains("short.npy");
        MainTest.run(0, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", store.toString());
        r = Python.run("import sys, zarr; print(zarr.open(sys.argv[1], mode='r').attrs['source'])", store.toString());
        assertThat(r.output()).contains("lignes-été.npy");
    }

    @Test
    void runsThatCannotFitAreRefusedBeforeAnyFileIsCreatedNamingTheFigure() throws IOException {
        Path in = rows(dir.resolve("rows.npy"), 2, 8);
        String out = MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "30",
                "--out", dir.resolve("s.npy").toString());
        assertThat(out).contains("memory").contains("GB");
        out = MainTest.run(ExitCodes.USAGE, "encode", "--example", "2147483648", "--encoding", "angle", "--qubits", "3",
                "--out", dir.resolve("s.npy").toString(), dir.resolve("ex.npy").toString());
        assertThat(out).contains("--example");
        assertThat(dir.resolve("s.npy")).doesNotExist();
        assertThat(dir.resolve("ex.npy")).doesNotExist();
    }

    @Test
    void dryRunPrintsThePlanAndCreatesNothing() throws IOException {
        Path in = rows(dir.resolve("rows.npy"), 50, 8);
        String out = MainTest.run(0, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--dry-run",
                "--out", dir.resolve("new/s.npy").toString());
        assertThat(out).contains("plan: 50 rows").contains("free:");
        assertThat(dir.resolve("new")).doesNotExist();
        out = MainTest.run(0, "encode", "--example", "1000", "--encoding", "angle", "--qubits", "4", "--dry-run",
                "--out", dir.resolve("s.npy").toString(), dir.resolve("ex.npy").toString());
        assertThat(out).contains("would write 1,000 example rows");
        assertThat(dir.resolve("ex.npy")).doesNotExist();
    }

    @Test
    void userErrorsAreOneLineWithoutAStackTrace() throws IOException {
        Path corrupt = Files.write(dir.resolve("corrupt.npy"), "\u0093NUMPY garbage".getBytes(StandardCharsets.ISO_8859_1));
        Path in = rows(dir.resolve("rows.npy"), 5, 8);
        List<List<String>> cases = List.of(
                List.of("encode", corrupt.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", dir.resolve("a.npy").toString()),
                List.of("encode", dir.resolve("missing.npy").toString(), "--encoding", "amplitude", "--qubits", "3", "--out", "b.npy"),
                List.of("inspect", dir.resolve("notes.txt").toString()),
                List.of("inspect", corrupt.toString()),
                List.of("encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", dir.resolve("c.npy").toString(),
                        "--timeline", "/proc/penstock/timeline.png"),
                List.of("encode", in.toString(), "--encoding", "amplitude", "--qubits", "99", "--out", dir.resolve("d.npy").toString()));
        for (List<String> args : cases) {
            String out = MainTest.runAnyCode(args.toArray(String[]::new));
            assertThat(errorLines(out)).as(String.join(" ", args) + "\n" + out).hasSize(1);
        }
        String traced = MainTest.runAnyCode("encode", corrupt.toString(), "--encoding", "amplitude", "--qubits", "3",
                "--out", dir.resolve("a.npy").toString(), "--debug");
        assertThat(traced).contains("\tat ");
    }

    @Test
    void aRaggedParquetListInSkipModeLosesThatRowOnlyAndSaysWhy() throws Exception {
        Path in = dev.penstock.testing.ParquetFiles.lists(dir.resolve("ragged.parquet"), 500, 8, 321, false);
        Path out = dir.resolve("s.npy");
        String printed = MainTest.run(0, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", out.toString(),
                "--on-bad-row", "skip");
        assertThat(printed).contains("encoded 499 of").contains("row 321: column").contains("7 values");
        try (NpyFile kept = NpyFile.open(dir.resolve("s.npy.rows.npy"))) {
            assertThat(kept.shape()).containsExactly(499);
            assertThat(kept.block().getLong(320)).isEqualTo(320);
            assertThat(kept.block().getLong(321)).isEqualTo(322);
        }
        assertThat(Files.readAllLines(dir.resolve("s.npy.skipped.tsv"))).containsExactly("row\treason",
                "321\tcolumn 'features': a list of 7 values, but the rows before have 8 (every row needs the same length)");
        String failed = MainTest.run(ExitCodes.BAD_INPUT, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3",
                "--out", dir.resolve("f.npy").toString());
        assertThat(errorLines(failed)).hasSize(1);
        assertThat(failed).contains("row 321");
        assertThat(dir.resolve("f.npy")).doesNotExist();
    }

    @Test
    void theDefaultExamplePathIsRewrittenOnlyWhenItHoldsAnExample() throws IOException {
        Path example = Path.of("target", "example-rows.npy");
        Files.createDirectories(example.getParent());
        Path saved = Files.exists(example) ? Files.move(example, dir.resolve("saved-example.npy")) : null;
        try {
            rows(example, 4, 8); // a file of the user's at the example's path
            byte[] mine = Files.readAllBytes(example);
            String out = MainTest.run(ExitCodes.USAGE, "encode", "--example", "10", "--encoding", "amplitude", "--qubits", "3",
                    "--out", dir.resolve("s.npy").toString());
            assertThat(out).contains("not an example Penstock wrote");
            assertThat(Files.readAllBytes(example)).isEqualTo(mine);
            Files.delete(example);
            MainTest.run(0, "encode", "--example", "10", "--encoding", "amplitude", "--qubits", "3", "--out",
                    dir.resolve("s.npy").toString());
            MainTest.run(0, "encode", "--example", "20", "--encoding", "amplitude", "--qubits", "3", "--out",
                    dir.resolve("s.npy").toString());
            try (NpyFile f = NpyFile.open(example)) {
                assertThat(f.shape()).containsExactly(20, 8);
            }
        } finally {
            Files.deleteIfExists(example);
            if (saved != null) {
                Files.move(saved, example);
            }
        }
    }
}
