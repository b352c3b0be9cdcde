package dev.penstock.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/// The outputs of one run — the main one and every sidecar (`OUT.rows.npy`, `OUT.skipped.tsv`,
/// `OUT.quarantined.xyz`, `OUT.manifest.json`) — committed together or not at all.
///
/// ```
///   begin(OUT, sidecars)   every destination checked (kind, parent), nothing created on refusal;
///                          .OUT.penstock-lock made (pid, start): a second run on OUT is refused
///                          while it runs; one left by a killed run is taken over
///   PendingOutput.file/directory(d), d in the set: enlisted; its commit() only syncs the temporary
///   remove(d)              the old d is removed at commit (a sidecar this run has nothing for)
///   commit():  journal .OUT.penstock-commit (every rename, "end", synced) and a copy of it beside
///              each sidecar ─▶ the renames, sidecars first, OUT last ─▶ the journals deleted
///   close() without commit(), abortAll (SIGINT/SIGTERM): every temporary deleted, every
///              destination as it was
/// ```
///
/// A kill at any point leaves either the old set or a journal: the next Penstock run or reader
/// that touches any file of the set (`finishInterrupted`, called by `PendingOutput` and by every
/// reader Penstock ships) first finishes the journal's renames (their temporaries were synced
/// before it was written), so no Penstock reader ever sees the set half-new. A reader that does
/// not know Penstock (NumPy, ASE) reading in the moment between a kill and that recovery can see
/// some files new and others old (RELIABILITY.md).
///
/// Threading: one thread runs the set; `abortAll` may run on a shutdown-hook thread.
public final class OutputSet implements AutoCloseable {
    private static final String LOCK = ".penstock-lock";
    private static final String JOURNAL = ".penstock-commit";
    private static final Map<Path, OutputSet> ENLISTED = new ConcurrentHashMap<>();

    private final Path main;
    private final List<Path> destinations;
    private final List<PendingOutput> members = new ArrayList<>();
    private final List<Path> removals = new ArrayList<>();
    private final Path lockFile;
    private final String holder;
    private boolean committing;
    private boolean ended;
    private int stopAfterForTests = -1;

    private OutputSet(Path main, List<Path> destinations, Path lockFile, String holder) {
        this.main = main;
        this.destinations = destinations;
        this.lockFile = lockFile;
        this.holder = holder;
    }

    /// Starts the set `main` + `sidecars`: finishes an interrupted commit of theirs, refuses a
    /// destination of the wrong kind (a directory where a file goes, or `main` being a file
    /// when `mainIsDirectory`) and a set another run is writing — in one line naming the path,
    /// creating nothing but the lock.
    public static OutputSet begin(Path main, boolean mainIsDirectory, List<Path> sidecars) throws IOException {
        Path m = absolute(main);
        List<Path> all = new ArrayList<>();
        all.add(m);
        for (Path s : sidecars) {
            all.add(absolute(s));
        }
        finishAllInterrupted(parentOf(m)); // a killed run's commit of these outputs: finished first
        for (int k = 0; k < all.size(); k++) {
            Path d = all.get(k);
            boolean wantDirectory = k == 0 && mainIsDirectory;
            if (d.startsWith(m) && k > 0) {
                continue; // inside the main (a Zarr group's rows): the group's own swap places it
            }
            if (Files.isDirectory(d) && !wantDirectory) {
                throw new OutputException(d + " is a directory, and this run writes a file there; remove it or name another output"
                        + (k == 0 ? "" : " (it is a sidecar of " + m.getFileName() + ")"));
            }
            if (Files.exists(d, LinkOption.NOFOLLOW_LINKS) && wantDirectory && !Files.isDirectory(d)) {
                throw new OutputException(d + " exists and is not a directory; remove it or name another output");
            }
        }
        Path parent = parentOf(m);
        Files.createDirectories(parent);
        if (!Files.isWritable(parent)) {
            throw new OutputException(parent + " is not writable: the outputs of " + m.getFileName() + " cannot be written there");
        }
        Path lockFile = parent.resolve("." + m.getFileName() + LOCK);
        String me = holder(ProcessHandle.current());
        lock(lockFile, m, me);
        OutputSet set = new OutputSet(m, List.copyOf(all), lockFile, me);
        for (Path d : all) {
            ENLISTED.put(d, set);
        }
        return set;
    }

    /// `pid start-instant` of `p`: a process, told apart from a later one with its pid.
    private static String holder(ProcessHandle p) {
        return p.pid() + " " + p.info().startInstant().map(Object::toString).orElse("?");
    }

    /// Creates `lockFile` holding `me`, exclusively (`CREATE_NEW`: one of two runs wins). A lock
    /// file of a process no longer running (SIGKILL) is taken over: renamed aside first, which
    /// only one of two runs racing for it can do. Not an OS file lock: those are per process on
    /// Linux and a second open of the file in the same process silently drops them.
    private static void lock(Path lockFile, Path m, String me) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try {
                Files.writeString(lockFile, me, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                return;
            } catch (java.nio.file.FileAlreadyExistsException held) {
                String by;
                try {
                    by = Files.readString(lockFile, StandardCharsets.US_ASCII).strip();
                } catch (java.nio.file.NoSuchFileException gone) {
                    continue;
                } catch (java.nio.charset.CharacterCodingException garbled) {
                    by = "";
                }
                String[] f = by.split(" ");
                ProcessHandle h = null;
                try {
                    h = f.length == 2 ? ProcessHandle.of(Long.parseLong(f[0])).orElse(null) : null;
                } catch (NumberFormatException notAPid) {
                    // a lock file cut short by a kill: nobody holds it
                }
                if (h != null && h.isAlive() && holder(h).equals(by)) {
                    throw new OutputException(m + " is being written by another Penstock run (pid " + f[0]
                            + "); wait for it to end or name another output");
                }
                if (f.length == 2 && by.equals(me)) {
                    throw new OutputException(m + " is being written by another run in this process; name another output");
                }
                Path aside = lockFile.resolveSibling(lockFile.getFileName() + "." + ProcessHandle.current().pid() + ".stale");
                try {
                    Files.move(lockFile, aside, StandardCopyOption.ATOMIC_MOVE);
                    Files.deleteIfExists(aside);
                } catch (java.nio.file.NoSuchFileException raced) {
                    // another run took it over first: look again
                }
            }
        }
        throw new OutputException(m + ": cannot take its lock " + lockFile);
    }

    /// The set `destination` belongs to, while one is open.
    static OutputSet of(Path destination) {
        return ENLISTED.get(destination);
    }

    synchronized void enlist(PendingOutput o) {
        if (ended || committing) {
            throw new IllegalStateException(main + ": the output set is already " + (ended ? "closed" : "committing"));
        }
        members.add(o);
    }

    /// Removes `destination` (a sidecar this run has nothing for: an earlier run's would describe
    /// other outputs) — at `commit()` when it belongs to an open set, at once otherwise.
    public static void remove(Path destination) throws IOException {
        Path d = absolute(destination);
        OutputSet set = ENLISTED.get(d);
        if (set == null) {
            Files.deleteIfExists(d);
            return;
        }
        synchronized (set) {
            set.removals.add(d);
        }
    }

    /// Puts every enlisted output in place and removes what `remove` named, all or nothing
    /// against a kill (the journal); each member must have been committed (its data synced).
    public void commit() throws IOException {
        List<String> ops = new ArrayList<>();
        List<Runnable> steps = new ArrayList<>();
        synchronized (this) {
            if (ended || committing) {
                throw new IllegalStateException(main + ": the output set is already " + (ended ? "closed" : "committing"));
            }
            for (PendingOutput o : members) {
                if (!o.prepared()) {
                    throw new IllegalStateException(o.destination() + " was not committed before its output set");
                }
            }
            committing = true;
        }
        List<PendingOutput> order = new ArrayList<>(members);
        order.sort(java.util.Comparator.comparing((PendingOutput o) -> normal(o.destination()).equals(main))); // OUT last
        for (Path d : removals) {
            if (order.stream().noneMatch(o -> normal(o.destination()).equals(d)) && Files.exists(d, LinkOption.NOFOLLOW_LINKS)) {
                Path gone = d.resolveSibling(PendingOutput.stem(d) + ".gone");
                ops.add("delete\t" + d + "\t" + gone);
            }
        }
        for (PendingOutput o : order) {
            ops.add(o.journalLine());
        }
        // the journal, complete ("end") and synced, beside OUT, then a copy beside each other
        // destination: a reader of any file of the set finds it with one look (finishInterrupted)
        List<Path> journals = new ArrayList<>();
        journals.add(journalOf(main));
        for (String op : ops) {
            Path d = destinationOf(op);
            if (!d.equals(main) && !d.startsWith(main)) {
                journals.add(journalOf(d));
            }
        }
        String text = "penstock-commit 1\npid\t" + ProcessHandle.current().pid() + "\n" + String.join("\n", ops) + "\nend\n";
        for (Path journal : journals) {
            Files.writeString(journal, text, StandardCharsets.UTF_8);
            try (FileChannel ch = FileChannel.open(journal, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }
        PendingOutput.syncDirectory(parentOf(main));
        for (int k = 0; k < ops.size(); k++) {
            if (k == stopAfterForTests) {
                return; // a kill right here, for the tests: the journals stay, the rest undone
            }
            apply(ops.get(k));
        }
        for (PendingOutput o : order) {
            o.placed();
        }
        PendingOutput.syncDirectory(parentOf(main));
        for (Path journal : journals.reversed()) { // OUT's last: while it stays, a writer's scan finishes the rest
            Files.deleteIfExists(journal);
        }
        PendingOutput.syncDirectory(parentOf(main));
        end();
    }

    /// For tests: the next `commit()` stops after `ops` of its renames, as a kill would.
    void stopCommitAfterForTests(int ops) {
        this.stopAfterForTests = ops;
    }

    /// Deletes every member's temporary unless `commit()` ran; releases the lock. Idempotent.
    @Override
    public void close() throws IOException {
        List<PendingOutput> discard;
        synchronized (this) {
            if (ended) {
                return;
            }
            discard = committing ? List.of() : List.copyOf(members);
        }
        IOException first = null;
        for (PendingOutput o : discard) {
            try {
                o.discardForSet();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        end();
        if (first != null) {
            throw first;
        }
    }

    private synchronized void end() throws IOException {
        if (ended) {
            return;
        }
        ended = true;
        for (Path d : destinations) {
            ENLISTED.remove(d, this);
        }
        try {
            if (Files.readString(lockFile, StandardCharsets.US_ASCII).strip().equals(holder)) {
                Files.deleteIfExists(lockFile);
            }
        } catch (java.nio.file.NoSuchFileException gone) {
            // already gone
        }
    }

    /// For SIGINT/SIGTERM (`PendingOutput.abortAll`, after it discarded the members): releases
    /// every set not committing, its lock file removed.
    static void abandonAll() {
        for (OutputSet set : java.util.Set.copyOf(ENLISTED.values())) {
            synchronized (set) {
                if (set.committing) {
                    continue; // its journal finishes it
                }
            }
            try {
                set.end();
            } catch (IOException e) {
                // best effort on the way out: a stale lock file is taken over by the next run
            }
        }
    }

    /// Whether a shutdown hook may discard `o` now: false once its set has begun committing
    /// (the journal finishes it, all or nothing).
    boolean mayDiscard() {
        synchronized (this) {
            return !committing;
        }
    }

    // ---- the journal ---------------------------------------------------------------------

    /// `.NAME.penstock-commit` beside `destination`.
    private static Path journalOf(Path destination) {
        return parentOf(destination).resolve("." + destination.getFileName() + JOURNAL);
    }

    /// Finishes the interrupted commit of the output set `path` belongs to, before it is read: a
    /// complete journal beside it (`.NAME.penstock-commit`, one look) left by a dead process is
    /// carried out — its renames done, idempotently, every copy of it deleted; one of a live
    /// process is waited for (a commit's renames take milliseconds), at most 30 s. Every reader of
    /// Penstock's outputs calls this first.
    ///
    /// @throws OutputException naming the journal when it cannot be finished
    public static void finishInterrupted(Path path) throws IOException {
        Path journal = journalOf(absolute(path));
        if (Files.exists(journal, LinkOption.NOFOLLOW_LINKS)) {
            finish(journal, false);
        }
    }

    /// As `finishInterrupted`, for every journal in `folder` (what a writer does before it
    /// removes stale temporaries there: none that a journal still needs may go). A journal cut
    /// short by a kill was never acted on (renames start once every copy is complete): it is
    /// deleted.
    static void finishAllInterrupted(Path folder) throws IOException {
        try (Stream<Path> siblings = Files.list(folder)) {
            finishAllInterrupted(siblings.sorted().toList());
        } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException | java.nio.file.AccessDeniedException e) {
            // an unreadable folder: nothing of ours to finish there
        }
    }

    /// As `finishAllInterrupted(folder)`, given the folder's entries (a writer lists it once).
    static void finishAllInterrupted(List<Path> siblings) throws IOException {
        for (Path journal : siblings) {
            if (journal.getFileName().toString().endsWith(JOURNAL)) {
                finish(journal, true);
            }
        }
    }

    private static void finish(Path journal, boolean removeIncomplete) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(journal, StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException gone) {
            return; // finished meanwhile
        } catch (java.nio.charset.CharacterCodingException garbled) {
            lines = List.of();
        }
        boolean complete = lines.size() >= 3 && lines.get(0).equals("penstock-commit 1") && lines.get(1).startsWith("pid\t")
                && lines.getLast().equals("end");
        long pid = -1;
        try {
            pid = complete ? Long.parseLong(lines.get(1).substring(4).trim()) : -1;
        } catch (NumberFormatException e) {
            complete = false;
        }
        if (!complete) {
            if (removeIncomplete && Files.getLastModifiedTime(journal).toMillis() < System.currentTimeMillis() - 60_000) {
                Files.deleteIfExists(journal); // a kill while it was written, a minute ago or more: nothing was renamed
            }
            return;
        }
        if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            waitFor(journal, pid);
            return;
        }
        List<String> ops = lines.subList(2, lines.size() - 1);
        Path parent = parentOf(journal);
        try {
            for (String op : ops) {
                apply(op);
            }
            PendingOutput.syncDirectory(parent);
            for (String op : ops) {
                Files.deleteIfExists(journalOf(destinationOf(op)));
            }
            Files.deleteIfExists(journal);
            PendingOutput.syncDirectory(parent);
        } catch (IOException e) {
            throw new OutputException(journal + ": a Penstock run was killed while committing its outputs, and finishing that commit failed: "
                    + e.getMessage());
        }
        System.getLogger(OutputSet.class.getName()).log(System.Logger.Level.INFO,
                "finished the commit of {0} that a killed run (pid {1}) had begun", journal, pid);
    }

    /// The destination a journal line puts in place or removes.
    private static Path destinationOf(String op) {
        String[] f = op.split("\t");
        return Path.of(f[0].equals("delete") ? f[1] : f[2]);
    }

    private static void waitFor(Path journal, long pid) throws OutputException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (Files.exists(journal) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (Files.exists(journal)) {
            throw new OutputException(journal + ": Penstock run " + pid + " has been committing these outputs for 30 s; wait for it to end");
        }
    }

    /// Carries out one journal line; each is idempotent, so a journal can be finished twice.
    private static void apply(String op) throws IOException {
        String[] f = op.split("\t");
        switch (f[0]) {
            case "move" -> { // move TEMP DEST
                Path temp = Path.of(f[1]);
                if (Files.exists(temp, LinkOption.NOFOLLOW_LINKS)) {
                    Files.move(temp, Path.of(f[2]), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            case "swap" -> { // swap TEMP DEST OLD: a directory
                Path temp = Path.of(f[1]);
                Path dest = Path.of(f[2]);
                Path old = Path.of(f[3]);
                if (Files.exists(temp, LinkOption.NOFOLLOW_LINKS)) {
                    if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS) && !Files.exists(old, LinkOption.NOFOLLOW_LINKS)) {
                        Files.move(dest, old, StandardCopyOption.ATOMIC_MOVE);
                    }
                    Files.move(temp, dest, StandardCopyOption.ATOMIC_MOVE);
                }
                PendingOutput.deleteTree(old);
            }
            case "delete" -> { // delete DEST GONE
                Path dest = Path.of(f[1]);
                Path gone = Path.of(f[2]);
                if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS) && !Files.exists(gone, LinkOption.NOFOLLOW_LINKS)) {
                    Files.move(dest, gone, StandardCopyOption.ATOMIC_MOVE);
                }
                PendingOutput.deleteTree(gone);
            }
            default -> throw new IOException("unknown journal line '" + op + "'");
        }
    }

    private static Path normal(Path p) {
        return p.toAbsolutePath().normalize();
    }

    private static Path absolute(Path p) throws IOException {
        Path abs = p.toAbsolutePath().normalize();
        return Files.isSymbolicLink(abs) ? abs.toRealPath() : abs;
    }

    private static Path parentOf(Path p) {
        Path parent = p.toAbsolutePath().getParent();
        return parent == null ? Path.of("/") : parent;
    }
}
