package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.testing.ParquetFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// What new users hit in their first hour: a typo named as one, a file of another format named
/// as such, a width that can never encode refused before any row is read, a run that keeps no
/// row not called a success, and no decoder chatter on stderr.
class FirstHourTest {
    @TempDir
    Path dir;

    @Test
    void aMistypedOptionIsNamedWithWhatItMayBeATypoOf() throws Exception {
        Path in = NothingLostTest.rows(dir.resolve("rows.npy"), 10, 8);
        String printed = MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encodng", "amplitude", "--qubits", "3", "--out",
                dir.resolve("s.npy").toString());
        assertThat(printed).contains("unknown option '--encodng'").contains("did you mean").contains("--encoding")
                .doesNotContain("Missing required");
        assertThat(dir.resolve("s.npy")).doesNotExist();
    }

    @Test
    void anAseTrajectoryGivenToSimulateIsBadInputNamedAsOne() throws Exception {
        Path traj = dir.resolve("cu.traj");
        byte[] head = "- of Ulm".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] body = new byte[256];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (0x80 + (i % 100));
        }
        Files.write(traj, head);
        Files.write(traj, body, java.nio.file.StandardOpenOption.APPEND);
        String printed = MainTest.run(ExitCodes.BAD_INPUT, "simulate", traj.toString(), "--pipeline", "fire(fmax=0.05)", "--potential",
                "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)", "--out", dir.resolve("out.xyz").toString());
        assertThat(printed).contains("not extended XYZ text").contains("an ASE trajectory").doesNotContain("outputs left as they were");
    }

    @Test
    void aRowWidthThatCanNeverEncodeIsRefusedBeforeAnyRowIsRead() throws Exception {
        Path ten = NothingLostTest.rows(dir.resolve("ten.npy"), 1000, 10);
        String printed = MainTest.run(ExitCodes.USAGE, "encode", ten.toString(), "--encoding", "angle", "--qubits", "4", "--on-bad-row",
                "skip", "--out", dir.resolve("s.npy").toString());
        assertThat(printed).contains("has 10 values a row, and angle on 4 qubits takes exactly 4").contains("--columns");
        String wide = MainTest.run(ExitCodes.USAGE, "encode", ten.toString(), "--encoding", "amplitude", "--qubits", "3", "--out",
                dir.resolve("s.npy").toString());
        assertThat(wide).contains("takes at most 8");
        assertThat(dir.resolve("s.npy")).doesNotExist();
    }

    @Test
    void aRunThatKeepsNoRowIsNotASuccessAndLeavesOutAsItWas() throws Exception {
        Path allBad = NothingLostTest.rows(dir.resolve("bad.npy"), 4, 8, 0, 1, 2, 3);
        Path out = Files.writeString(dir.resolve("s.npy"), "previous");
        String printed = MainTest.run(ExitCodes.BAD_INPUT, "encode", allBad.toString(), "--encoding", "amplitude", "--qubits", "3",
                "--on-bad-row", "skip", "--out", out.toString());
        assertThat(printed).contains("none of its 4 rows could be encoded").contains("row 0").contains("left as it was");
        assertThat(out).hasContent("previous");
        assertThat(dir.resolve("s.npy.rows.npy")).doesNotExist();
    }

    @Test
    void zstdAndSnappyParquetFilesEncodeAsTheirRowsSay() throws Exception {
        for (var codec : List.of(org.apache.parquet.hadoop.metadata.CompressionCodecName.ZSTD,
                org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY)) {
            Path pq = ParquetFiles.compressed(dir.resolve(codec + ".parquet"), 500, codec);
            Path out = dir.resolve(codec + ".npy");
            MainTest.run(0, "encode", pq.toString(), "--encoding", "amplitude", "--qubits", "2", "--out", out.toString());
            try (var f = dev.penstock.formats.npy.NpyFile.open(out)) {
                assertThat(f.shape()).containsExactly(500, 4);
                double norm = Math.sqrt(8 * 8 + 15 * 15 + 22 * 22); // row 7: 8, 15, 22
                assertThat(f.block().getReal(7 * 4 + 1)).as(codec.toString()).isCloseTo(15 / norm, org.assertj.core.api.Assertions.within(1e-15));
            }
        }
    }

    @Test
    void theCommandLineNamesItsOptionsWhereTheLibraryNamesItsParameters() throws Exception {
        Path in = NothingLostTest.rows(dir.resolve("rows.npy"), 10, 8);
        String out = dir.resolve("s.npy").toString();
        assertThat(MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--rows-per-chunk", "0",
                "--out", out)).contains("option '--rows-per-chunk' must be at least 1, got 0");
        assertThat(MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encoding", "ampl", "--qubits", "3", "--out", out))
                .contains("option '--encoding': unknown encoding 'ampl'");
        assertThat(MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3", "--on-bad-row", "maybe",
                "--out", out)).contains("option '--on-bad-row': unknown bad-row policy 'maybe'");
        assertThat(EncodeCommand.asOption("ioThreads must be at least 1, got 0")).isEqualTo("option '--io-threads' must be at least 1, got 0");
        assertThat(EncodeCommand.asOption("output: states are c64 (f32) or c128 (f64), got f64"))
                .isEqualTo("option '--precision': states are c64 (f32) or c128 (f64), got f64");
    }

    @Test
    void theColumnsTheRowsAreMadeOfAreSaidBeforeTheRunAndInADryRun() throws Exception {
        Path pq = ParquetFiles.compressed(dir.resolve("xyz.parquet"), 50, org.apache.parquet.hadoop.metadata.CompressionCodecName.ZSTD);
        String dry = MainTest.run(0, "encode", pq.toString(), "--encoding", "amplitude", "--qubits", "2", "--out",
                dir.resolve("s.npy").toString(), "--dry-run");
        assertThat(dry).contains("reading xyz.parquet: columns x, y, z");
        String some = MainTest.run(0, "encode", pq.toString(), "--columns", "z,x", "--encoding", "angle", "--qubits", "2", "--out",
                dir.resolve("s.npy").toString());
        assertThat(some).contains("reading xyz.parquet: columns z, x");
        // ids and labels beside the features: left out by the default choice, and said so
        Path labelled = ParquetFiles.table(dir.resolve("labelled.parquet"), 20, "required int64 id; required double f0; "
                + "required double f1; required int32 label;");
        String chosen = MainTest.run(0, "encode", labelled.toString(), "--encoding", "angle", "--qubits", "2", "--out",
                dir.resolve("l.npy").toString());
        assertThat(chosen).contains("reading labelled.parquet: columns f0, f1 (not read: id, label;").contains("encoded 20 of 20 rows");
    }

    @Test
    void theParquetDecodersNotesStayOffStderr() throws Exception {
        Path pq = ParquetFiles.wide(dir.resolve("wide.parquet"), 200, 3);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "encode", pq.toString(), "--encoding", "amplitude",
                "--qubits", "2", "--on-bad-row", "skip", "--out", dir.resolve("s.npy").toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String printed = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(printed).isZero();
        assertThat(printed).doesNotContain("INFO:").doesNotContain("dev.hardwood");
    }
}
