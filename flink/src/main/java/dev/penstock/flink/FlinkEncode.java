package dev.penstock.flink;

import dev.penstock.cuda.EncodeDevice;
import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.formats.parquet.ParquetRowGroups;
import dev.penstock.io.PendingOutput;
import dev.penstock.memory.DType;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodeInputs;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.EncodingException;
import dev.penstock.quantum.RowSource;
import dev.penstock.quantum.RowSources;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/// Encoding as a Flink job: the input's rows split into ranges, each range encoded on a task
/// (its own device — a `CpuDevice`, or with `device` `cuda` a GPU of its task manager per task —
/// and the same pipeline as `penstock encode`) into a shard of its own, which the client joins
/// once the job has succeeded:
///
/// ```
///   NumberSequenceSource (range indices, checkpointed) ─rebalance─▶ encode range ×P ─▶ discard
///                                                                      └─ parts/shard-00007.npy        states of range 7
///                                                                         parts/shard-00007.skipped.tsv  its skipped rows (skip mode)
/// ```
///
/// A task reads its range straight from the input file (a path every task manager can read) and
/// writes its shard beside its name, renamed into place when whole: a range encoded twice (a
/// restart after a failure re-runs the ranges after the last checkpoint) writes the same bytes
/// again, so a restarted job leaves the same shards as an uninterrupted one. In flight per task:
/// one range, streamed through the encode pipeline's bounded chunks; the source hands out range
/// indices only as tasks take them (Flink's credit-based flow control is the backpressure).
/// Inputs: `.npy`, Arrow IPC and HDF5 (read from any row: ranges of whole chunks) and Parquet
/// (ranges of whole row groups, each read on its own: `parquetRanges`).
public final class FlinkEncode {
    private FlinkEncode() {
    }

    /// What to encode (travels with the job graph).
    ///
    /// @param input        the input file, as every task manager sees it
    /// @param columns      Arrow columns (empty: the default)
    /// @param dataset      the HDF5 dataset (null: the file's only 2-D numeric one)
    /// @param encoding     the encoding's label
    /// @param qubits       qubits per state
    /// @param states       `c64` or `c128`
    /// @param rowsPerChunk rows per chunk of a task's pipeline
    /// @param skipBadRows  skip and report bad rows (else a bad row fails the job)
    /// @param parts        the folder the shards go to
    /// @param device       each task's device: `cpu`, `cuda` (GPU k mod the GPUs its task manager
    ///                     sees, for the task of index k: one per task where there are as many GPUs
    ///                     as slots), `auto` (the same where there is a GPU, else cpu) or `cuda:N`
    public record Spec(String input, List<String> columns, String dataset, String encoding, int qubits, String states, int rowsPerChunk,
                       boolean skipBadRows, String parts, String device) implements Serializable {
        /// Copies the list; checks the device's name (`EncodeDevice.checked`).
        public Spec {
            columns = List.copyOf(columns);
            device = EncodeDevice.checked(device);
        }

        /// A job whose tasks encode on the CPU.
        public Spec(String input, List<String> columns, String dataset, String encoding, int qubits, String states, int rowsPerChunk,
                    boolean skipBadRows, String parts) {
            this(input, columns, dataset, encoding, qubits, states, rowsPerChunk, skipBadRows, parts, "cpu");
        }
    }

    /// Rows `[first, first + count)` of the input, encoded as shard `index`; for a Parquet input,
    /// whole row groups (`groups`; null for the inputs read from any row).
    public record Range(int index, long first, long count, ParquetRowGroups groups) implements Serializable {
        /// A range of an input read from any row.
        public Range(int index, long first, long count) {
            this(index, first, count, null);
        }
    }

    /// The ranges of `rows` rows for `parallelism` tasks: about four per task (so a slow task
    /// does not hold the job up), each a whole number of `rowsPerChunk` chunks; at least one.
    public static List<Range> ranges(long rows, int rowsPerChunk, int parallelism) {
        long perRange = Math.max(1, (rows + 4L * parallelism - 1) / (4L * parallelism));
        perRange = Math.max(rowsPerChunk, (perRange + rowsPerChunk - 1) / rowsPerChunk * rowsPerChunk);
        List<Range> out = new ArrayList<>();
        for (long first = 0; first < rows || out.isEmpty(); first += perRange) {
            out.add(new Range(out.size(), first, Math.min(perRange, rows - first)));
        }
        return out;
    }

    /// The ranges of a Parquet file whose row groups hold `groupRows` rows each: consecutive whole
    /// groups, about four ranges per task (a group is never split: its pages are read in order);
    /// `listWidth` is the file's row length when it is read from a list column.
    public static List<Range> parquetRanges(long[] groupRows, int listWidth, int parallelism) {
        long total = java.util.Arrays.stream(groupRows).sum();
        long target = Math.max(1, (total + 4L * parallelism - 1) / (4L * parallelism));
        List<Range> out = new ArrayList<>();
        long first = 0;
        int g = 0;
        while (g < groupRows.length) {
            int from = g;
            long rows = 0;
            do {
                rows += groupRows[g++];
            } while (g < groupRows.length && rows + groupRows[g] <= target);
            out.add(new Range(out.size(), first, rows, new ParquetRowGroups(from, g - from, first, listWidth)));
            first += rows;
        }
        if (out.isEmpty()) {
            out.add(new Range(0, 0, 0, new ParquetRowGroups(0, 0, 0, listWidth)));
        }
        return out;
    }

    /// Shard `index`'s states under `parts`.
    public static Path shard(Path parts, int index) {
        return parts.resolve(String.format(java.util.Locale.ROOT, "shard-%05d.npy", index));
    }

    /// Shard `index`'s skipped rows (`row\treason` lines, global rows) under `parts`; absent when none.
    public static Path skipped(Path parts, int index) {
        return parts.resolve(String.format(java.util.Locale.ROOT, "shard-%05d.skipped.tsv", index));
    }

    /// Adds the job to `env`: `ranges` encoded by `parallelism` tasks into `spec.parts()`, with
    /// checkpoints every `checkpointMs` (0: none; a failure then re-runs every range).
    public static void build(StreamExecutionEnvironment env, Spec spec, List<Range> ranges, int parallelism, long checkpointMs) {
        Encoding.parse(spec.encoding()); // refused on the client, not on a task
        if (checkpointMs > 0) {
            env.enableCheckpointing(checkpointMs, CheckpointingMode.EXACTLY_ONCE);
            // the range indices waiting in front of a busy task are tiny but each takes a range's
            // time: an aligned barrier would wait behind all of them (no checkpoint until the end);
            // unaligned, it overtakes them and they are stored with the checkpoint
            env.getCheckpointConfig().enableUnalignedCheckpoints();
        }
        env.fromSource(new NumberSequenceSource(0, ranges.size() - 1), WatermarkStrategy.noWatermarks(), "ranges").setParallelism(1)
                .rebalance()
                .map(new EncodeRanges(spec, ranges)).setParallelism(parallelism).name("encode").uid("penstock-encode")
                .sinkTo(new DiscardingSink<>()).setParallelism(parallelism).name("done");
    }

    /// A task's work: encodes ranges into shards, on the device its spec names.
    static final class EncodeRanges extends RichMapFunction<Long, Long> {
        private final Spec spec;
        private final List<Range> ranges;
        private transient EncodeDevice device;

        EncodeRanges(Spec spec, List<Range> ranges) {
            this.spec = spec;
            this.ranges = List.copyOf(ranges);
        }

        @Override
        public void open(OpenContext context) {
            int task = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            try {
                device = EncodeDevice.open(spec.device(), task);
            } catch (IllegalArgumentException e) { // no GPU on this task manager: the job fails, saying where
                throw new IllegalStateException("encode task " + task + " on " + host() + ": " + e.getMessage(), e);
            }
        }

        private static String host() {
            try {
                return java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                return "this task manager";
            }
        }

        @Override
        public Long map(Long index) throws Exception {
            encode(device, spec, ranges.get(Math.toIntExact(index)));
            return index;
        }

        @Override
        public void close() {
            if (device != null) {
                device.close();
            }
        }
    }

    /// Test instrumentation: called with each range's index before a task encodes it (a test
    /// throws from it once to check that a restarted job writes the same bytes). Null in use.
    static volatile java.util.function.IntConsumer beforeRange;

    /// Encodes `range` of `spec`'s input on `device` into its shard (and its skipped rows).
    static void encode(EncodeDevice device, Spec spec, Range range) throws Exception {
        java.util.function.IntConsumer hook = beforeRange;
        if (hook != null) {
            hook.accept(range.index());
        }
        Path parts = Path.of(spec.parts());
        Encoding encoding = Encoding.parse(spec.encoding());
        EncodePipeline.Config config = new EncodePipeline.Config(encoding, spec.qubits(), DType.parse(spec.states()), spec.rowsPerChunk(), 3,
                2, spec.skipBadRows() ? BadRowPolicy.SKIP : BadRowPolicy.FAIL);
        EncodeSummary summary;
        java.util.Map<Long, String> problems;
        Path input = Path.of(spec.input());
        try (EncodeInputs.Opened in = range.groups() != null ? EncodeInputs.parquet(input, spec.columns(), spec.skipBadRows(), range.groups())
                : EncodeInputs.open(input, spec.columns(), spec.dataset(), spec.skipBadRows())) {
            RowSource slice;
            if (range.groups() != null) {
                slice = in.source(); // the range's row groups alone, read in order
            } else if (in.source().sequential()) {
                throw new IllegalArgumentException(spec.input() + ": a Parquet input's ranges are whole row groups (FlinkEncode.parquetRanges)");
            } else {
                slice = RowSources.slice(in.source(), range.first(), range.count());
            }
            try (NpyWriter w = NpyWriter.open(shard(parts, range.index()), config.output(), 1L << spec.qubits())) {
                summary = device.run(slice, w::append, config, null);
                w.commit();
            } catch (EncodingException e) { // the slice's row, as the input's
                throw new EncodingException(range.first() + e.row(), e.rule());
            }
            problems = in.problems();
        }
        Path skipped = skipped(parts, range.index());
        if (summary.skipped().isEmpty()) {
            Files.deleteIfExists(skipped); // an earlier attempt's, if any: this one skipped nothing
            return;
        }
        PendingOutput.write(skipped, tmp -> {
            try (var out = Files.newBufferedWriter(tmp)) {
                for (EncodingException e : summary.skipped()) {
                    out.write((range.first() + e.row()) + "\t" + problems.getOrDefault(e.row(), e.rule()).replace('\t', ' ').replace('\n', ' ')
                            + "\n");
                }
            }
        });
    }

    /// A local MiniCluster of `parallelism` slots, loopback only, restarting a failed job
    /// `Restarts.EMBEDDED` times.
    public static StreamExecutionEnvironment localEnvironment(int parallelism) {
        return FlinkRunner.localEnvironment(parallelism, new FlinkRunner.Options(parallelism, java.time.Duration.ZERO, 1));
    }
}
