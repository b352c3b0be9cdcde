package dev.penstock.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// A run's outputs are committed together or not at all: checked before anything is written,
/// never seen half-new by a Penstock reader after a kill mid-commit, and never mixed by two runs.
class OutputSetTest {
    @TempDir
    Path dir;

    private Path out;
    private Path rows;
    private Path skipped;

    private void oldSet() throws IOException {
        out = dir.resolve("states.npy");
        rows = dir.resolve("states.npy.rows.npy");
        skipped = dir.resolve("states.npy.skipped.tsv");
        Files.writeString(out, "old states");
        Files.writeString(rows, "old rows");
        Files.writeString(skipped, "old skipped");
    }

    /// Writes the new set through enlisted outputs (as the writers do), without committing it.
    private OutputSet newSet(boolean withSkipped) throws IOException {
        OutputSet set = OutputSet.begin(out, false, List.of(rows, skipped));
        PendingOutput.write(rows, tmp -> Files.writeString(tmp, "new rows"));
        if (withSkipped) {
            PendingOutput.write(skipped, tmp -> Files.writeString(tmp, "new skipped"));
        } else {
            OutputSet.remove(skipped);
        }
        PendingOutput.write(out, tmp -> Files.writeString(tmp, "new states"));
        return set;
    }

    private List<String> hidden() throws IOException {
        try (Stream<Path> all = Files.list(dir)) {
            return all.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).toList();
        }
    }

    private void assertAll(String age) throws IOException {
        assertThat(Files.readString(out)).isEqualTo(age + " states");
        assertThat(Files.readString(rows)).isEqualTo(age + " rows");
        assertThat(Files.readString(skipped)).isEqualTo(age + " skipped");
    }

    @Test
    void nothingChangesUntilTheSetCommitsThenEverythingDoes() throws Exception {
        oldSet();
        try (OutputSet set = newSet(true)) {
            assertAll("old");
            set.commit();
        }
        assertAll("new");
        assertThat(hidden()).as("no temporary, journal or lock left").isEmpty();
    }

    @Test
    void aSetClosedWithoutCommitLeavesEveryDestinationAsItWas() throws Exception {
        oldSet();
        try (OutputSet set = newSet(false)) {
            assertThat(set).isNotNull(); // the run fails here
        }
        assertAll("old");
        assertThat(hidden()).isEmpty();
    }

    @Test
    void anOutputSpelledAnotherWayIsStillOneOfTheSet() throws Exception {
        oldSet();
        Files.createDirectories(dir.resolve("sub"));
        Path other = dir.resolve("sub").resolve("..").resolve("states.npy");
        try (OutputSet set = OutputSet.begin(out, false, List.of(rows, skipped))) {
            PendingOutput.write(other, tmp -> Files.writeString(tmp, "new states"));
            assertThat(Files.readString(out)).as("enlisted: not placed before the set commits").isEqualTo("old states");
            set.commit();
        }
        assertThat(Files.readString(out)).isEqualTo("new states");
    }

    @Test
    void aSidecarWithNothingToSayIsRemovedAtCommitNotBefore() throws Exception {
        oldSet();
        try (OutputSet set = newSet(false)) {
            assertThat(skipped).exists();
            set.commit();
        }
        assertThat(skipped).doesNotExist();
        assertThat(Files.readString(out)).isEqualTo("new states");
    }

    @Test
    void aKillMidCommitIsFinishedByTheNextPenstockReaderOrWriterNeverSeenHalfNew() throws Exception {
        for (int stop = 0; stop < 3; stop++) {
            for (boolean byReader : new boolean[] {true, false}) {
                oldSet();
                OutputSet set = newSet(true);
                set.stopCommitAfterForTests(stop);
                set.commit(); // "killed" after `stop` renames: the journal stays
                Path journal = dir.resolve(".states.npy.penstock-commit");
                assertThat(journal).exists();
                killedBy(journal, deadPid());
                set.close(); // the lock goes with the killed process
                if (byReader) {
                    OutputSet.finishInterrupted(rows); // what every Penstock reader does before it reads
                } else {
                    try (PendingOutput next = PendingOutput.file(out)) {
                        assertThat(next.path()).exists();
                    }
                }
                assertAll("new");
                assertThat(hidden()).as("stop after %d, by %s", stop, byReader ? "a reader" : "a writer").isEmpty();
            }
        }
    }

    @Test
    void aJournalWrittenHalfWayIsIgnoredAndTheOldSetStands() throws Exception {
        oldSet();
        Files.writeString(dir.resolve(".states.npy.penstock-commit"), "penstock-comm"); // killed while writing it
        OutputSet.finishInterrupted(out);
        assertAll("old");
    }

    @Test
    void aSecondRunOnTheSameOutputIsRefusedWhileTheFirstHoldsIt() throws Exception {
        oldSet();
        try (OutputSet first = newSet(true)) {
            assertThatThrownBy(() -> OutputSet.begin(out, false, List.of(rows))).isInstanceOf(OutputException.class)
                    .hasMessageContaining(out + " is being written by another");
            first.commit();
        }
        try (OutputSet again = OutputSet.begin(out, false, List.of(rows))) {
            assertThat(again).isNotNull();
        }
        assertAll("new");
    }

    @Test
    void aLockLeftByAKilledRunIsTakenOver() throws Exception {
        oldSet();
        Files.writeString(dir.resolve(".states.npy.penstock-lock"), deadPid() + " 2026-01-01T00:00:00Z");
        try (OutputSet set = newSet(true)) {
            set.commit();
        }
        assertAll("new");
        assertThat(hidden()).isEmpty();
    }

    @Test
    void aSidecarThatIsAFolderIsRefusedBeforeAnythingIsCreated() throws Exception {
        oldSet();
        Files.delete(rows);
        Files.createDirectory(rows);
        assertThatThrownBy(() -> OutputSet.begin(out, false, List.of(rows, skipped))).isInstanceOf(OutputException.class)
                .hasMessageContaining(rows + " is a directory").hasMessageContaining("sidecar of states.npy");
        assertThat(hidden()).as("nothing created").isEmpty();
        assertThat(Files.readString(skipped)).isEqualTo("old skipped");
    }

    @Test
    void aSignalBeforeTheCommitDiscardsTheSetAndOneDuringItLetsItFinish() throws Exception {
        oldSet();
        try (OutputSet set = newSet(true)) {
            assertThat(PendingOutput.abortAll()).contains(out.toAbsolutePath(), rows.toAbsolutePath(), skipped.toAbsolutePath());
        }
        assertAll("old");
        assertThat(hidden()).isEmpty();
    }

    /// Rewrites `journal` as if written by process `pid`.
    private static void killedBy(Path journal, long pid) throws IOException {
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(journal));
        lines.set(1, "pid\t" + pid);
        Files.write(journal, lines);
    }

    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }
}
