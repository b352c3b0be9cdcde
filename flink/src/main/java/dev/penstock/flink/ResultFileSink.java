package dev.penstock.flink;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/// An exactly-once result sink (Sink V2 with a committer): each writer appends finished
/// samples to a hidden in-progress file; at a checkpoint the file is closed and handed to the
/// committer, which renames it to `part-<subtask>-<uuid>.<suffix>` once the checkpoint has
/// completed. A sample written after the last completed checkpoint is in a file that is never
/// renamed: after a failure it is written again (from the restored stage state) into a new file.
/// So the visible `part-*` files hold every sample exactly once. Commits are idempotent (a
/// missing in-progress file with its final file present counts as done).
///
/// Clean-up after a failure: each writer keeps, in its checkpointed state, the files it has
/// handed to the committer and that are not renamed yet (the committer re-commits those after a
/// restore). A writer restarted after a failure deletes every other in-progress file of its
/// subtask: what the failed attempt wrote after the last completed checkpoint, which no commit
/// will ever take (its samples are written again from the restored stage state). Readers take
/// `part-*` only, so such files are never seen as results even before they are deleted.
public final class ResultFileSink<S> implements Sink<byte[]>, SupportsCommitter<String>, SupportsWriterState<byte[], String> {
    private final String dir;
    private final String suffix;
    private final JobSpec<S> spec;

    /// A sink writing into `dir` files ending in `suffix` (e.g. "xyz"), samples formatted by the
    /// job's `format`.
    public ResultFileSink(Path dir, String suffix, JobSpec<S> spec) {
        this.dir = dir.toString();
        this.suffix = suffix;
        this.spec = spec;
    }

    @Override
    public StatefulSinkWriter<byte[], String> createWriter(WriterInitContext context) throws IOException {
        Files.createDirectories(Path.of(dir));
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        if (context.getTaskInfo().getAttemptNumber() > 0) {
            removeStranded(subtask, Set.of()); // restarted before any checkpoint completed: nothing is pending
        }
        return new FileWriter(subtask, List.of());
    }

    @Override
    public StatefulSinkWriter<byte[], String> restoreWriter(WriterInitContext context, Collection<String> pending) throws IOException {
        Files.createDirectories(Path.of(dir));
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        removeStranded(subtask, Set.copyOf(pending));
        return new FileWriter(subtask, pending);
    }

    @Override
    public SimpleVersionedSerializer<String> getWriterStateSerializer() {
        return getCommittableSerializer();
    }

    /// Deletes subtask `subtask`'s in-progress files except `pending` (handed to the committer by
    /// a completed checkpoint, to be renamed by it).
    private void removeStranded(int subtask, Set<String> pending) throws IOException {
        String prefix = ".inprogress-part-" + subtask + "-";
        List<Path> stranded;
        try (var files = Files.list(Path.of(dir))) {
            stranded = files.filter(p -> p.getFileName().toString().startsWith(prefix) && !pending.contains(p.toString())).toList();
        }
        for (Path p : stranded) {
            Files.deleteIfExists(p);
        }
    }

    @Override
    public Committer<String> createCommitter(CommitterInitContext context) {
        return new Renamer();
    }

    @Override
    public SimpleVersionedSerializer<String> getCommittableSerializer() {
        return new SimpleVersionedSerializer<>() {
            @Override
            public int getVersion() {
                return 1;
            }

            @Override
            public byte[] serialize(String path) {
                return path.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String deserialize(int version, byte[] bytes) {
                return new String(bytes, StandardCharsets.UTF_8);
            }
        };
    }

    /// The final name of an in-progress file.
    static Path committed(Path inProgress) {
        String name = inProgress.getFileName().toString();
        return inProgress.resolveSibling(name.substring(".inprogress-".length()));
    }

    private final class FileWriter implements CommittingSinkWriter<byte[], String>, StatefulSinkWriter<byte[], String> {
        private final int subtask;
        private final List<String> handedOver = new ArrayList<>(); // to the committer, maybe not renamed yet
        private Path current;
        private Writer out;

        FileWriter(int subtask, Collection<String> pending) {
            this.subtask = subtask;
            handedOver.addAll(pending);
        }

        /// The files handed to the committer that are still in progress (not renamed yet).
        @Override
        public List<String> snapshotState(long checkpointId) {
            handedOver.removeIf(f -> !Files.exists(Path.of(f)));
            return List.copyOf(handedOver);
        }

        @Override
        public void write(byte[] record, Context context) throws IOException {
            if (out == null) {
                current = Path.of(dir).resolve(".inprogress-part-" + subtask + "-" + UUID.randomUUID() + "." + suffix);
                out = Files.newBufferedWriter(current);
            }
            spec.format().write(Bytes.decode(spec.codec(), record), out);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
            if (out != null) {
                out.flush();
            }
        }

        @Override
        public Collection<String> prepareCommit() throws IOException {
            if (out == null) {
                return List.of();
            }
            out.close();
            out = null;
            String done = current.toString();
            current = null;
            handedOver.add(done);
            return List.of(done);
        }

        /// Drops the uncommitted part (never handed to the committer, in no checkpoint): closing
        /// must not throw, or Flink, already handling the task's failure (a full disk whose
        /// buffered bytes cannot be flushed either), takes its TaskManager down with it and the
        /// job waits for slots until it times out.
        @Override
        public void close() {
            if (out == null) {
                return;
            }
            try {
                out.close();
            } catch (IOException refused) {
                // the disk refused the last buffered bytes: the part is dropped below anyway
            }
            out = null;
            try {
                Files.deleteIfExists(current);
            } catch (IOException e) {
                // hidden and uncommitted: the next run over this folder removes it
            }
            current = null;
        }
    }

    private static final class Renamer implements Committer<String> {
        @Override
        public void commit(Collection<CommitRequest<String>> requests) throws IOException {
            for (CommitRequest<String> r : requests) {
                Path from = Path.of(r.getCommittable());
                Path to = committed(from);
                if (!Files.exists(from)) {
                    if (Files.exists(to)) {
                        r.signalAlreadyCommitted();
                    } else {
                        r.signalFailedWithKnownReason(new IOException("in-progress result file " + from + " is gone"));
                    }
                    continue;
                }
                try {
                    Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(from, to);
                }
            }
        }

        @Override
        public void close() {
        }
    }
}
