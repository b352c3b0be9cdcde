package dev.penstock.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PendingOutputTest {
    @TempDir
    Path dir;

    @AfterEach
    void noTemporaryIsLeftBehind() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            assertThat(all.map(p -> p.getFileName().toString()).filter(n -> n.contains(".penstock-"))).isEmpty();
        }
    }

    @Test
    void aFileIsInvisibleAtItsDestinationUntilCommitted() throws IOException {
        Path out = dir.resolve("states.npy");
        try (PendingOutput o = PendingOutput.file(out)) {
            Files.writeString(o.path(), "complete");
            assertThat(o.path().getParent()).isEqualTo(out.toAbsolutePath().getParent());
            assertThat(out).doesNotExist();
            o.commit();
        }
        assertThat(out).hasContent("complete");
    }

    @Test
    void closingWithoutCommitLeavesThePreviousOutputAsItWas() throws IOException {
        Path out = dir.resolve("states.npy");
        Files.writeString(out, "previous good output");
        try (PendingOutput o = PendingOutput.file(out)) {
            Files.writeString(o.path(), "half");
        }
        assertThat(out).hasContent("previous good output");
    }

    @Test
    void writeLeavesTheDestinationAsItWasWhenTheBodyThrows() throws IOException {
        Path out = dir.resolve("plot.png");
        Files.writeString(out, "old");
        assertThatThrownBy(() -> PendingOutput.write(out, tmp -> {
            Files.writeString(tmp, "partial");
            throw new IOException("No space left on device");
        })).hasMessageContaining("No space");
        assertThat(out).hasContent("old");
    }

    @Test
    void aDirectoryIsSwappedInWholeAndTheOldOneRemoved() throws IOException {
        Path store = dir.resolve("s.zarr");
        Files.createDirectories(store.resolve("states"));
        Files.writeString(store.resolve(".zgroup"), "old");
        Files.writeString(store.resolve("states/9.0"), "old chunk of a longer array");
        try (PendingOutput o = PendingOutput.directory(store, p -> true)) {
            Files.writeString(o.path().resolve(".zgroup"), "new");
            assertThat(store.resolve(".zgroup")).hasContent("old");
            o.commit();
        }
        assertThat(store.resolve(".zgroup")).hasContent("new");
        assertThat(store.resolve("states/9.0")).doesNotExist();
    }

    @Test
    void aDirectoryHoldingFilesTheWriterDidNotWriteIsRefusedAndKept() throws IOException {
        Path store = dir.resolve("s.zarr");
        Files.createDirectories(store);
        Files.writeString(store.resolve(".zarray"), "{}");
        Files.writeString(store.resolve("notes.txt"), "mine");
        assertThatThrownBy(() -> PendingOutput.directory(store, p -> p.getFileName().toString().startsWith(".z")))
                .isInstanceOf(OutputException.class).hasMessageContaining("notes.txt");
        assertThat(store.resolve("notes.txt")).hasContent("mine");
    }

    @Test
    void aFileDestinationThatIsADirectoryIsRefused() throws IOException {
        Files.createDirectories(dir.resolve("out.npy"));
        assertThatThrownBy(() -> PendingOutput.file(dir.resolve("out.npy"))).isInstanceOf(OutputException.class)
                .hasMessageContaining("is a directory");
    }

    @Test
    void anInputIsRefusedAsAnOutputDirectlyThroughASymlinkAndThroughAHardLink() throws IOException {
        Path in = Files.writeString(dir.resolve("rows.npy"), "input");
        Path link = Files.createSymbolicLink(dir.resolve("link.npy"), in);
        Path hard = Files.createLink(dir.resolve("hard.npy"), in);
        for (Path out : List.of(in, dir.resolve("sub/../rows.npy"), link, hard)) {
            Files.createDirectories(dir.resolve("sub"));
            assertThatThrownBy(() -> PendingOutput.refuseInputs(out, List.of(in))).isInstanceOf(OutputException.class)
                    .hasMessageContaining("is the input");
        }
        PendingOutput.refuseInputs(dir.resolve("other.npy"), List.of(in));
        assertThat(in).hasContent("input");
    }

    @Test
    void aDirectoryOutputHoldingTheInputIsRefused() throws IOException {
        Path store = Files.createDirectories(dir.resolve("s.zarr"));
        Path in = Files.writeString(store.resolve("rows.npy"), "input");
        assertThatThrownBy(() -> PendingOutput.refuseInputs(store, List.of(in))).isInstanceOf(OutputException.class);
    }

    @Test
    void aSymlinkedDestinationIsWrittenWhereTheLinkPoints() throws IOException {
        Path real = Files.writeString(dir.resolve("real.npy"), "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.npy"), real);
        PendingOutput.write(link, tmp -> Files.writeString(tmp, "new"));
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(real).hasContent("new");
    }

    @Test
    void temporariesOfAProcessThatDiedAreRemovedByTheNextOutput() throws IOException {
        long dead = Long.MAX_VALUE / 3; // no such pid
        Path stale = Files.writeString(dir.resolve(".states.npy.penstock-" + dead + "-1.tmp"), "killed mid-write");
        Path unrelated = Files.writeString(dir.resolve(".states.npy.penstock-notapid.tmp"), "not ours");
        PendingOutput.write(dir.resolve("states.npy"), tmp -> Files.writeString(tmp, "x"));
        assertThat(stale).doesNotExist();
        assertThat(unrelated).exists();
        Files.delete(unrelated);
    }

    @Test
    void aStoreLeftAsideByAKillMidSwapIsPutBackNotDeleted() throws IOException {
        long dead = Long.MAX_VALUE / 3;
        Path store = dir.resolve("s.zarr");
        Path old = Files.createDirectories(dir.resolve(".s.zarr.penstock-" + dead + "-1.old"));
        Files.writeString(old.resolve(".zgroup"), "the previous complete store");
        Path half = Files.createDirectories(dir.resolve(".s.zarr.penstock-" + dead + "-1.tmp"));
        Files.writeString(half.resolve("0.0"), "half of the new one");
        try (PendingOutput o = PendingOutput.directory(store, p -> true)) {
            assertThat(store.resolve(".zgroup")).hasContent("the previous complete store");
            assertThat(half).doesNotExist();
        }
        assertThat(store.resolve(".zgroup")).hasContent("the previous complete store");
    }

    @Test
    void abortAllDiscardsEveryOutputNotYetCommitted() throws IOException {
        Path a = dir.resolve("a.npy");
        Path b = dir.resolve("b.zarr");
        PendingOutput pa = PendingOutput.file(a);
        PendingOutput pb = PendingOutput.directory(b, p -> true);
        Files.writeString(pb.path().resolve("0.0"), "chunk");
        assertThat(PendingOutput.abortAll()).contains(a.toAbsolutePath(), b.toAbsolutePath());
        assertThat(pa.path()).doesNotExist();
        assertThat(pb.path()).doesNotExist();
        assertThatThrownBy(pa::commit).isInstanceOf(IllegalStateException.class);
        assertThat(a).doesNotExist();
        assertThat(b).doesNotExist();
    }
}
