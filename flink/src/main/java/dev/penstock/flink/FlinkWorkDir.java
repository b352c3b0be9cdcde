package dev.penstock.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/// The embedded MiniCluster's working files — its extracted RPC jar, `minicluster_*` folders,
/// blob storage, spill files (`io.tmp.dirs`, from which Flink derives the others) — in one folder
/// of this process's own: `penstock-flink-<pid>-<n>` under `java.io.tmpdir`, owner-only
/// (`rwx------`), deleted when the JVM ends (normally, or on SIGINT/SIGTERM, by a shutdown hook)
/// and, after a SIGKILL, by the next Penstock run that starts a MiniCluster. Flink's defaults put
/// them straight into the world-readable temporary folder and leave them there (hundreds of MB).
///
/// One folder per JVM, not per job: the RPC system Flink loads once per JVM keeps its jar open.
///
/// Threading: `path()` may be called from any thread.
final class FlinkWorkDir {
    private static final String PREFIX = "penstock-flink-";
    private static Path path;

    private FlinkWorkDir() {
    }

    /// This process's folder, created (and stale ones of dead processes removed) on first use.
    static synchronized Path path() {
        if (path == null) {
            Path base = Path.of(System.getProperty("java.io.tmpdir"));
            try {
                removeStale(base);
                String name = PREFIX + ProcessHandle.current().pid() + "-";
                path = base.getFileSystem().supportedFileAttributeViews().contains("posix")
                        ? Files.createTempDirectory(base, name, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
                        : Files.createTempDirectory(base, name);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create Flink's working folder under " + base, e);
            }
            Path mine = path;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(mine), "penstock-flink-workdir-cleanup"));
        }
        return path;
    }

    /// Removes `penstock-flink-<pid>-*` folders of processes no longer alive.
    private static void removeStale(Path base) throws IOException {
        try (Stream<Path> all = Files.list(base)) {
            for (Path p : all.filter(f -> f.getFileName().toString().startsWith(PREFIX)).toList()) {
                String rest = p.getFileName().toString().substring(PREFIX.length());
                int dash = rest.indexOf('-');
                try {
                    long pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                        deleteQuietly(p);
                    }
                } catch (NumberFormatException e) {
                    // not ours
                }
            }
        }
    }

    private static void deleteQuietly(Path root) {
        for (int attempt = 0; attempt < 5; attempt++) {
            try (Stream<Path> all = Files.walk(root)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
                return;
            } catch (IOException | UncheckedIOException e) {
                // a MiniCluster thread may still be closing files: try again
            }
        }
    }
}
