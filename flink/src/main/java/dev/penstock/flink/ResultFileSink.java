package dev.penstock.flink;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
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
/// Hidden files (`.inprogress-*`) left by a failure are garbage: readers take `part-*` only.
public final class ResultFileSink<S> implements Sink<byte[]>, SupportsCommitter<String> {
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
    public SinkWriter<byte[]> createWriter(WriterInitContext context) throws IOException {
        Files.createDirectories(Path.of(dir));
        return new FileWriter(context.getTaskInfo().getIndexOfThisSubtask());
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

    private final class FileWriter implements CommittingSinkWriter<byte[], String> {
        private final int subtask;
        private Path current;
        private Writer out;

        FileWriter(int subtask) {
            this.subtask = subtask;
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
            return List.of(done);
        }

        @Override
        public void close() throws IOException {
            if (out != null) {
                out.close(); // uncommitted: stays hidden
                out = null;
            }
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
