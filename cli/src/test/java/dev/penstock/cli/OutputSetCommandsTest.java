package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/// Every output of a run — OUT and each sidecar — is checked before anything is written and
/// committed with the others or not at all; two runs never mix their outputs; a Flink run keeps
/// its working files in a private folder of its own and touches no folder of the user's.
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class OutputSetCommandsTest {
    private static final String LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";

    @TempDir
    Path dir;

    private List<String> listing() throws IOException {
        return SimulatePreflightTest.listing(dir);
    }

    private Path clusters() throws IOException {
        return SimulatePreflightTest.clusters(dir);
    }

    @Test
    void anEncodeWhoseRowsSidecarIsAFolderIsRefusedBeforeItWritesAnything() throws Exception {
        Path in = NothingLostTest.rows(dir.resolve("rows.npy"), 50, 8, 3);
        Path out = dir.resolve("states.npy");
        Files.writeString(out, "previous states");
        Files.writeString(dir.resolve("states.npy.skipped.tsv"), "previous skipped");
        Files.createDirectory(dir.resolve("states.npy.rows.npy"));
        List<String> before = listing();
        String printed = MainTest.run(ExitCodes.OUTPUT_FAILED, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "3",
                "--on-bad-row", "skip", "--out", out.toString());
        assertThat(printed).contains("states.npy.rows.npy is a directory").doesNotContain("\tat ");
        assertThat(printed.strip().lines().filter(l -> l.startsWith("penstock")).count()).as(printed).isEqualTo(1);
        assertThat(Files.readString(out)).isEqualTo("previous states");
        assertThat(Files.readString(dir.resolve("states.npy.skipped.tsv"))).as("the sidecar of the old states stays").isEqualTo("previous skipped");
        assertThat(listing()).isEqualTo(before);
    }

    @Test
    void aSimulateWhoseQuarantineSidecarIsAFolderIsRefusedBeforeTheRunAndOutStays() throws Exception {
        Path in = clusters();
        Path out = dir.resolve("out.xyz");
        Files.writeString(out, "previous results");
        Files.createDirectory(dir.resolve("out.xyz.quarantined.xyz"));
        List<String> before = listing();
        String printed = MainTest.run(ExitCodes.OUTPUT_FAILED, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01, steps=300)",
                "--potential", LJ, "--out", out.toString());
        assertThat(printed).contains("out.xyz.quarantined.xyz is a directory").doesNotContain("finished").doesNotContain("\tat ");
        assertThat(Files.readString(out)).isEqualTo("previous results");
        assertThat(listing()).isEqualTo(before);
    }

    @Test
    void aSkippedRowsFileOfAnEarlierRunGoesWithTheNewStatesAndOnlyThen() throws Exception {
        Path bad = NothingLostTest.rows(dir.resolve("bad.npy"), 20, 8, 4);
        Path good = NothingLostTest.rows(dir.resolve("good.npy"), 20, 8);
        Path out = dir.resolve("s.npy");
        MainTest.run(0, "encode", bad.toString(), "--encoding", "amplitude", "--qubits", "3", "--on-bad-row", "skip", "--out", out.toString());
        assertThat(dir.resolve("s.npy.skipped.tsv")).exists();
        MainTest.run(0, "encode", good.toString(), "--encoding", "amplitude", "--qubits", "3", "--out", out.toString());
        assertThat(dir.resolve("s.npy.skipped.tsv")).as("it described the old states").doesNotExist();
        assertThat(listing()).containsExactly("bad.npy", "good.npy", "s.npy", "s.npy.rows.npy");
    }

    /// A child JVM running the CLI with `args`, its temporary folder `tmp`, output to `log`.
    private static Process child(Path tmp, Path log, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    @Test
    void aSecondRunOnTheSameOutputIsRefusedWhileTheFirstRunsAndTheFirstCommitsWhole() throws Exception {
        Path in = NothingLostTest.rows(dir.resolve("rows.npy"), 20_000, 78);
        Path out = dir.resolve("states.npy");
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Process first = child(tmp, dir.resolve("first.log"), "encode", in.toString(), "--encoding", "iqp", "--qubits", "12", "--out",
                out.toString(), "--rows-per-chunk", "64");
        Path lock = dir.resolve(".states.npy.penstock-lock");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(lock) && first.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(lock).as(Files.exists(dir.resolve("first.log")) ? Files.readString(dir.resolve("first.log")) : "").exists();
        String printed = MainTest.run(ExitCodes.OUTPUT_FAILED, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "7",
                "--out", out.toString());
        assertThat(printed).contains(out + " is being written by another Penstock run");
        assertThat(first.waitFor(180, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).as(Files.readString(dir.resolve("first.log"))).isZero();
        try (var f = dev.penstock.formats.npy.NpyFile.open(out)) {
            assertThat(f.shape()).containsExactly(20_000, 4096); // the first run's, whole
        }
        assertThat(listing()).containsExactly("first.log", "rows.npy", "states.npy", "states.npy.rows.npy", "tmp");
    }

    @Test
    void aFlinkSimulateLeavesNoWorkingFileAndNeverTouchesAFolderOfTheUsers() throws Exception {
        Path in = clusters();
        Path out = dir.resolve("up.xyz");
        Path mine = Files.createDirectory(dir.resolve("up.xyz.parts"));
        Files.writeString(mine.resolve("notes.txt"), "mine");
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Process p = child(tmp, dir.resolve("run.log"), "simulate", in.toString(), "--pipeline", "fire(fmax=0.01, steps=300)", "--potential",
                LJ, "--out", out.toString(), "--runner", "flink");
        assertThat(p.waitFor(200, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("run.log"))).isZero();
        assertThat(Files.readString(mine.resolve("notes.txt"))).isEqualTo("mine");
        assertThat(listing()).containsExactly("clusters.xyz", "run.log", "tmp", "up.xyz", "up.xyz.parts");
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.map(Path::toString).toList()).as("Flink's working files (RPC jar, minicluster_*, blobs) are gone").isEmpty();
        }
    }
}
