package dev.penstock.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Stream;

/// An output being written beside its destination and renamed into place only on success.
///
/// ```
///   dir/states.npy                              the destination: untouched until commit()
///   dir/.states.npy.penstock-<pid>-<n>.tmp      what the writer writes: path()
///
///   commit():  fsync every file of path() ─▶ rename path() over the destination ─▶ fsync dir
///   close() without commit(), abortAll() (SIGINT/SIGTERM), an exception: delete path();
///             the destination is as it was
/// ```
///
/// A directory (a Zarr store) is swapped in at the end: the old one is renamed aside, the new
/// one renamed into place, then the old one deleted; a directory is replaced only when every
/// file in it is one the writer owns (`ownEntry`), never a user's unrelated files. Temporaries
/// of a process that died (SIGKILL) are removed by the next output to the same destination (a
/// previous store left aside mid-swap is put back first).
/// A destination that is a symbolic link is written where the link points.
///
/// A destination that belongs to an open `OutputSet` (a run's main output and its sidecars) is
/// enlisted in it: `commit()` then only syncs the temporary, and the set puts every member in
/// place together, all or nothing against a kill.
///
/// Threading: one thread writes and commits; `abortAll` may run on a shutdown-hook thread.
public final class PendingOutput implements AutoCloseable {
    private static final String MARK = ".penstock-";
    private static final Set<PendingOutput> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicLong COUNTER = new AtomicLong();

    private final Path destination;
    private final Path temp;
    private final boolean directory;
    private final OutputSet set; // null: committed on its own
    private boolean done; // guarded by this: commit and discard (a shutdown hook's) exclude each other
    private boolean prepared; // synced, waiting for its set's commit

    private PendingOutput(Path destination, boolean directory) throws IOException {
        this(destination, directory, false);
    }

    private PendingOutput(Path destination, boolean directory, boolean owner) throws IOException {
        this.destination = destination;
        this.directory = directory;
        Path parent = parentOf(destination);
        Files.createDirectories(parent);
        List<Path> siblings;
        try (Stream<Path> all = Files.list(parent)) {
            siblings = all.sorted().toList();
        }
        OutputSet.finishAllInterrupted(siblings); // a killed run's commits first: their temporaries are not stale
        removeStaleTemporaries(siblings, destination);
        this.temp = parent.resolve(stem(destination) + ".tmp");
        if (directory && owner && Files.getFileStore(parent).supportsFileAttributeView("posix")) {
            Files.createDirectory(temp, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        } else if (directory) {
            Files.createDirectory(temp);
        } else {
            Files.createFile(temp);
        }
        this.set = owner ? null : OutputSet.of(destination.toAbsolutePath().normalize());
        if (set != null) {
            set.enlist(this);
        }
        LIVE.add(this);
    }

    /// A file output: the writer writes `path()`; `commit()` renames it over `destination`.
    /// Refused (before anything is created) when `destination` is a directory.
    public static PendingOutput file(Path destination) throws IOException {
        Path dest = resolveLink(destination);
        if (Files.isDirectory(dest)) {
            throw new OutputException(destination + " is a directory; name a file");
        }
        return new PendingOutput(dest, false);
    }

    /// A directory output (a store of files): the writer fills `path()`; `commit()` swaps it in.
    /// An existing `destination` is replaced only if every file in it, relative to it, passes
    /// `ownEntry` (e.g. Zarr metadata and chunk keys); otherwise it is refused, naming a file.
    public static PendingOutput directory(Path destination, Predicate<Path> ownEntry) throws IOException {
        refuseForeign(destination, ownEntry);
        return new PendingOutput(resolveLink(destination), true);
    }

    /// Refuses a directory destination that `directory(destination, ownEntry)` would refuse (not
    /// a directory, or holding a file that fails `ownEntry`), creating nothing: for a writer that
    /// opens its output only at the end (`SystemsZarrSink`) but must refuse before the run.
    public static void refuseForeign(Path destination, Predicate<Path> ownEntry) throws IOException {
        Path dest = resolveLink(destination);
        if (Files.exists(dest)) {
            if (!Files.isDirectory(dest)) {
                throw new OutputException(destination + " exists and is not a directory; remove it or name another output");
            }
            try (Stream<Path> all = Files.walk(dest)) {
                Path foreign = all.filter(p -> !Files.isDirectory(p)).filter(p -> !ownEntry.test(dest.relativize(p)))
                        .findFirst().orElse(null);
                if (foreign != null) {
                    throw new OutputException(destination + " holds " + dest.relativize(foreign)
                            + ", which this writer did not write; remove it or name another output");
                }
            }
        }
    }

    /// A working folder beside `destination` for a run's own intermediate files (a Flink job's
    /// shards), the owner's alone from its creation (`rwx------` where the file system is
    /// POSIX), never committed: `close()` deletes it, as SIGINT/SIGTERM and the next run after a
    /// SIGKILL do.
    public static PendingOutput scratch(Path destination) throws IOException {
        return new PendingOutput(resolveLink(destination), true, true);
    }

    /// Writes a file output in one go: `body` writes the temporary, which is then committed;
    /// if `body` throws, the destination is left as it was.
    public static void write(Path destination, Body body) throws IOException {
        try (PendingOutput o = file(destination)) {
            body.writeTo(o.path());
            o.commit();
        }
    }

    /// What writes a temporary for `write`.
    @FunctionalInterface
    public interface Body {
        /// Writes the whole output to `temp`.
        void writeTo(Path temp) throws IOException;
    }

    /// Refuses a destination that is, or resolves to, one of `inputs` (or, for a directory
    /// destination, holds one): the output would destroy what it is computed from.
    public static void refuseInputs(Path destination, List<Path> inputs) throws OutputException {
        for (Path in : inputs) {
            if (in == null || !Files.exists(in)) {
                continue;
            }
            try {
                Path realIn = in.toRealPath();
                if (Files.exists(destination) && (Files.isSameFile(destination, in)
                        || realIn.startsWith(destination.toRealPath()))) {
                    throw new OutputException(destination + " is the input " + in + "; write the output to another path");
                }
            } catch (OutputException e) {
                throw e;
            } catch (IOException e) {
                throw new OutputException(destination + ": cannot compare with the input " + in + ": " + e.getMessage());
            }
        }
    }

    /// What the writer writes: a hidden sibling of the destination (same file system).
    public Path path() {
        return temp;
    }

    /// Flushes the written data to the disk and renames it into place; the destination now
    /// holds the complete output. Call once, after the writer has closed its files.
    public synchronized void commit() throws IOException {
        if (done || prepared) {
            throw new IllegalStateException(destination + ": already committed or discarded");
        }
        syncTree(temp);
        if (set != null) {
            prepared = true; // the set renames it, with the others
            return;
        }
        if (!directory) {
            Files.move(temp, destination, StandardCopyOption.ATOMIC_MOVE);
        } else if (!Files.exists(destination)) {
            Files.move(temp, destination, StandardCopyOption.ATOMIC_MOVE);
        } else {
            String name = temp.getFileName().toString();
            Path old = temp.resolveSibling(name.substring(0, name.length() - ".tmp".length()) + ".old");
            Files.move(destination, old, StandardCopyOption.ATOMIC_MOVE);
            try {
                Files.move(temp, destination, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                Files.move(old, destination, StandardCopyOption.ATOMIC_MOVE);
                throw e;
            }
            deleteTree(old);
        }
        done = true;
        LIVE.remove(this);
        syncDirectory(parentOf(destination));
    }

    /// Discards the output unless it was committed: the temporary is deleted, the destination
    /// left as it was.
    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (prepared) {
                return; // committed into its set: the set places or discards it
            }
        }
        discard();
    }

    /// Its set was closed without committing: the temporary goes.
    void discardForSet() throws IOException {
        discard();
    }

    /// Deletes the temporary unless `commit()` or an earlier discard came first, or its set has
    /// begun committing (the set's journal finishes it); true if it did.
    private synchronized boolean discard() throws IOException {
        if (done || set != null && !set.mayDiscard()) {
            return false;
        }
        done = true;
        LIVE.remove(this);
        deleteTree(temp);
        return true;
    }

    /// The destination (absolute, a link resolved).
    Path destination() {
        return destination;
    }

    /// Whether it was committed and waits for its set.
    synchronized boolean prepared() {
        return prepared;
    }

    /// What its set's journal does to put it in place (`OutputSet`).
    String journalLine() {
        if (!directory) {
            return "move\t" + temp + "\t" + destination;
        }
        String name = temp.getFileName().toString();
        Path old = temp.resolveSibling(name.substring(0, name.length() - ".tmp".length()) + ".old");
        return "swap\t" + temp + "\t" + destination + "\t" + old;
    }

    /// Its set put it in place.
    synchronized void placed() {
        done = true;
        LIVE.remove(this);
    }

    /// `.name.penstock-<pid>-<n>`: the hidden sibling's name without its `.tmp`/`.old` suffix.
    static String stem(Path destination) {
        return "." + destination.getFileName() + MARK + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
    }

    /// Discards every output of this process not yet committed (for SIGINT/SIGTERM: a shutdown
    /// hook calls it while writers may still be running). Returns the destinations left as
    /// they were.
    public static List<Path> abortAll() {
        List<Path> aborted = new java.util.ArrayList<>();
        for (PendingOutput o : List.copyOf(LIVE)) {
            try {
                if (o.discard()) {
                    aborted.add(o.destination);
                }
            } catch (IOException e) {
                aborted.add(o.destination); // best effort: a hidden temporary may remain, never the destination
            }
        }
        OutputSet.abandonAll();
        return aborted;
    }

    private static Path resolveLink(Path destination) throws IOException {
        Path abs = destination.toAbsolutePath();
        return Files.isSymbolicLink(abs) ? abs.toRealPath() : abs;
    }

    private static Path parentOf(Path p) {
        Path parent = p.toAbsolutePath().getParent();
        return parent == null ? Path.of("/") : parent;
    }

    /// Removes `.name.penstock-<pid>-*` left by a process that is no longer alive. A SIGKILL
    /// between a directory swap's two renames leaves the previous store aside as `….old` and
    /// nothing at the destination: that store is put back, not deleted.
    private static void removeStaleTemporaries(List<Path> siblings, Path destination) throws IOException {
        String prefix = "." + destination.getFileName() + MARK;
        for (Path p : siblings) {
            String f = p.getFileName().toString();
            if (!f.startsWith(prefix) || !Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                continue; // not ours, or placed by a journal finished just before
            }
            String rest = f.substring(prefix.length());
            int dash = rest.indexOf('-');
            long pid;
            try {
                pid = Long.parseLong(rest.substring(0, dash < 0 ? rest.length() : dash));
            } catch (NumberFormatException e) {
                continue; // not ours after all: leave it
            }
            if (ProcessHandle.of(pid).isPresent()) {
                continue;
            }
            if (f.endsWith(".old") && !Files.exists(destination, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.move(p, destination, StandardCopyOption.ATOMIC_MOVE);
            } else {
                deleteTree(p);
            }
        }
    }

    /// Deletes a file or a directory tree. Writers may still add files to it (an abort on a
    /// shutdown hook), so a directory that refills is walked again, a bounded number of times.
    static void deleteTree(Path root) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                if (!Files.isDirectory(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(root);
                    return;
                }
                try (Stream<Path> all = Files.walk(root)) {
                    for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
                return;
            } catch (DirectoryNotEmptyException | NoSuchFileException | UncheckedIOException e) {
                if (attempt >= 100) {
                    throw new IOException("could not delete " + root + ": still being written", e);
                }
                Thread.onSpinWait();
            }
        }
    }

    private static void syncTree(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            try (FileChannel ch = FileChannel.open(root, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.toList()) {
                if (Files.isDirectory(p)) {
                    syncDirectory(p);
                } else {
                    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                        ch.force(true);
                    }
                }
            }
        }
    }

    static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some file systems cannot sync a directory; the renamed files themselves are synced
        }
    }
}
