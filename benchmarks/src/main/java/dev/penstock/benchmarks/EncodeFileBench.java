package dev.penstock.benchmarks;

import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.formats.arrow.ArrowRows;
import dev.penstock.formats.parquet.ParquetRows;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.Encoder;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.RowSource;
import dev.penstock.quantum.RowSources;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/// The `encode-file` workload (docs/workloads.md): a ~100 MB Parquet file of float64 feature rows
/// (1,024 columns, 10 qubits) → amplitude states (complex128) → `.npy`, end to end through
/// `EncodePipeline`, against each stage alone in the same run: Parquet read alone, encode alone
/// (one thread, as the pipeline's compute stream), `.npy` write alone (the faster of one write and the
/// pipeline's 512-row appends, each round); then the same rows from an
/// Arrow IPC file, against the same stages. Both files are read from their mappings by two threads
/// (the Parquet file's plain pages in place), alone and in the pipelines.
///
/// Run: `./penstock bench encode-file [--rows 12800] [--repeat 3]`.
public final class EncodeFileBench {
    /// Values per row of the inputs.
    public static final int COLS = 1024;
    /// Qubits of the amplitude states (2^10 = COLS values per row).
    public static final int QUBITS = 10;
    /// Rows per chunk in the pipeline, and per read in the read-alone stage (the same work).
    /// Rows per chunk of the pipelines.
    public static final int CHUNK_ROWS = 512;

    private final int rows;
    private final int repeat;
    private final Path dir;
    private final PrintStream out;

    /// A benchmark over `rows` rows, `repeat` runs per measurement (median), files under `dir`.
    public EncodeFileBench(int rows, int repeat, Path dir, PrintStream out) {
        if (rows < 1 || repeat < 1) {
            throw new IllegalArgumentException("options '--rows' and '--repeat' must be at least 1, got " + rows + ", " + repeat);
        }
        this.rows = rows;
        this.repeat = repeat;
        this.dir = dir;
        this.out = out;
    }

    /// The Parquet input `run()` writes (and keeps) under the directory.
    public Path parquet() {
        return dir.resolve("encode-file-" + rows + "x" + COLS + ".parquet");
    }

    /// Runs the stages alone and the pipeline; returns the figures.
    public Map<String, String> run() throws Exception {
        Files.createDirectories(dir);
        Path parquet = parquet();
        if (!Files.exists(parquet)) {
            long t0 = System.nanoTime();
            Path tmp = parquet.resolveSibling("." + parquet.getFileName() + ".tmp"); // an interrupted write leaves no partial input
            Files.deleteIfExists(tmp);
            writeParquet(tmp);
            Files.move(tmp, parquet, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            out.printf(Locale.ROOT, "wrote %s (%d MB) in %.1f s%n", parquet, Files.size(parquet) >> 20, (System.nanoTime() - t0) / 1e9);
        }
        Path arrow = dir.resolve("encode-file-" + rows + "x" + COLS + ".arrow");
        if (!Files.exists(arrow)) {
            long t0 = System.nanoTime();
            ArrowFiles.writeFloat64(arrow, rows, COLS, 1024, EncodeFileBench::value);
            out.printf(Locale.ROOT, "wrote %s (%d MB) in %.1f s%n", arrow, Files.size(arrow) >> 20, (System.nanoTime() - t0) / 1e9);
        }
        Path npy = dir.resolve("encode-file-states.npy");
        double readS;
        double encodeS;
        double writeS;
        double pipelineS;
        double arrowReadS;
        double arrowPipelineS;
        double copyingWriteS;
        double[] cpuS = new double[5]; // CPU seconds: read, encode, write alone, the pipeline, the Arrow read alone
        try (HostArena arena = Memory.newSharedArena("encode-file")) {
            Block in = arena.allocate(DType.F64, rows, COLS);
            try (ParquetRows r = ParquetRows.open(parquet, List.of())) {
                long done = 0;
                int k;
                while ((k = r.next(in.segment().asSlice(done * COLS * 8), (int) (rows - done))) > 0) {
                    done += k;
                }
            }
            Block states = arena.allocate(DType.C128, rows, 1L << QUBITS);
            Encoder enc = Encoder.of(Encoding.AMPLITUDE, QUBITS);
            // Rounds interleave the four measurements so that JIT warm-up and page-cache state
            // favour none of them; the first two rounds are warm-up.
            checkSameRows(arrow, in);
            double[][] t = new double[7][repeat];
            double[][] u = new double[5][repeat]; // the process's CPU seconds of a, b, c, d, e
            for (int round = -2; round < repeat; round++) {
                double a = time(() -> readAlone(parquet));
                double aCpu = lastCpuS;
                double b = time(() -> enc.encodeBatch(in, states, 0, BadRowPolicy.FAIL));
                double bCpu = lastCpuS;
                // the write alone at its best: one write of every row, or the pipeline's appends
                // of CHUNK_ROWS rows (whose flushes run while the next rows are written)
                double c1 = time(() -> NpyWriter.write(npy, states));
                double c1Cpu = lastCpuS;
                double c2 = time(() -> appendAlone(npy, states));
                double c = Math.min(c1, c2);
                double cCpu = c2 < c1 ? lastCpuS : c1Cpu;
                if (round >= 0 && c2 < c1) {
                    appendsWon++;
                }
                double d = time(() -> pipeline(parquet, npy));
                double dCpu = lastCpuS;
                // what this machine's write does while another core moves memory (the pipeline's case)
                double g = time(() -> besideACopyingCore(() -> appendAlone(npy, states)));
                double e = time(() -> arrowReadAlone(arrow));
                double eCpu = lastCpuS;
                double f = time(() -> arrowPipeline(arrow, npy));
                if (round >= 0) {
                    double[] walls = {a, b, c, d, e, f, g};
                    double[] cpus = {aCpu, bCpu, cCpu, dCpu, eCpu};
                    for (int k = 0; k < walls.length; k++) {
                        t[k][round] = walls[k];
                    }
                    for (int k = 0; k < cpus.length; k++) {
                        u[k][round] = cpus[k];
                    }
                }
            }
            readS = median(t[0]);
            encodeS = median(t[1]);
            writeS = median(t[2]);
            pipelineS = median(t[3]);
            arrowReadS = median(t[4]);
            arrowPipelineS = median(t[5]);
            copyingWriteS = median(t[6]);
            for (int k = 0; k < cpuS.length; k++) {
                cpuS[k] = median(u[k]);
            }
        }
        boolean inPlace;
        try (ParquetRows r = ParquetRows.open(parquet, List.of())) {
            inPlace = r.readsInPlace();
        }
        double slowest = Math.max(readS, Math.max(encodeS, writeS));
        String slowestName = slowest == readS ? "read" : slowest == encodeS ? "encode" : "write";
        Files.deleteIfExists(npy);
        Map<String, String> m = new LinkedHashMap<>();
        m.put("input_mb", Long.toString(Files.size(parquet) >> 20));
        // how the Parquet file was read: its plain pages in place, or decoded by Hardwood
        m.put("parquet_reader", inPlace ? "plain pages in place" : "hardwood");
        m.put("read_alone_rows_per_s", fmt(rows / readS));
        m.put("encode_alone_rows_per_s", fmt(rows / encodeS));
        m.put("write_alone_rows_per_s", fmt(rows / writeS));
        m.put("write_alone_best_way", appendsWon * 2 > repeat ? "appends of " + CHUNK_ROWS + " rows" : "one write");
        m.put("slowest_stage", slowestName);
        // the write (appends) again while one other core copies memory without pause: how much
        // this machine's write slows beside memory traffic, as the pipeline's reads, copies and
        // encoding make beside its write (a bound on the ratio here, not a stage of its own)
        m.put("write_beside_a_copying_core_rows_per_s", fmt(rows / copyingWriteS));
        m.put("write_slowdown_beside_a_copying_core", String.format(Locale.ROOT, "%.2f", copyingWriteS / writeS));
        // what this machine allows at best: a pipeline runs its stages at once on `cores` cores,
        // so it takes at least the slowest stage's time and at least the stages' CPU time shared
        // over the cores (each stage alone had the whole machine: the reads ran on two threads)
        int cores = Runtime.getRuntime().availableProcessors();
        double floor = Math.max(slowest, (cpuS[0] + cpuS[1] + cpuS[2]) / cores);
        m.put("cores", Integer.toString(cores));
        m.put("cpu_s_read_encode_write_alone", String.format(Locale.ROOT, "%.3f %.3f %.3f", cpuS[0], cpuS[1], cpuS[2]));
        m.put("pipeline_cpu_s", String.format(Locale.ROOT, "%.3f", cpuS[3]));
        m.put("ratio_bound_on_this_machine", String.format(Locale.ROOT, "%.3f", slowest / floor));
        m.put("rows_per_s", fmt(rows / pipelineS));
        m.put("ratio_vs_slowest_stage", String.format(Locale.ROOT, "%.3f", slowest / pipelineS));
        // where the pipeline's time went, from its median measured run: copy/compute overlap and
        // staging-pool starvation (times and count a chunk waited for a free staging buffer)
        List<EncodeSummary> measured = new java.util.ArrayList<>(runs.subList(runs.size() - repeat, runs.size()));
        measured.sort(java.util.Comparator.comparingLong(EncodeSummary::wallNs));
        var median = measured.get(measured.size() / 2).transfer();
        m.put("overlap_percent", String.format(Locale.ROOT, "%.1f", median.overlapPercent()));
        m.put("staging_waits", Long.toString(median.slotWaits()));
        m.put("staging_wait_ms", String.format(Locale.ROOT, "%.1f", median.slotWaitNs() / 1e6));
        // the same rows from an Arrow IPC file: read from the mapping by IO_THREADS threads at once
        double arrowSlowest = Math.max(arrowReadS, Math.max(encodeS, writeS));
        m.put("arrow_input_mb", Long.toString(Files.size(arrow) >> 20));
        m.put("arrow_read_alone_rows_per_s", fmt(rows / arrowReadS));
        m.put("arrow_slowest_stage", arrowSlowest == arrowReadS ? "read" : arrowSlowest == encodeS ? "encode" : "write");
        m.put("arrow_rows_per_s", fmt(rows / arrowPipelineS));
        m.put("arrow_ratio_vs_slowest_stage", String.format(Locale.ROOT, "%.3f", arrowSlowest / arrowPipelineS));
        m.put("arrow_ratio_bound_on_this_machine", String.format(Locale.ROOT, "%.3f",
                arrowSlowest / Math.max(arrowSlowest, (cpuS[4] + cpuS[1] + cpuS[2]) / cores)));
        return m;
    }

    private interface Timed {
        void run() throws Exception;
    }

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    /// The CPU seconds (every thread of this process, the kernel's work for it included) of
    /// the last `time` call.
    private static double lastCpuS;

    private static double time(Timed t) throws Exception {
        long c0 = OS.getProcessCpuTime();
        long t0 = System.nanoTime();
        t.run();
        double wall = (System.nanoTime() - t0) / 1e9;
        lastCpuS = (OS.getProcessCpuTime() - c0) / 1e9;
        return wall;
    }

    private static double median(double[] s) {
        double[] c = s.clone();
        java.util.Arrays.sort(c);
        return c[c.length / 2];
    }

    private int appendsWon;

    /// Runs `t` while one other thread copies 64 MB between two buffers without pause (memory
    /// traffic, no I/O; a thread that only computes slowed this machine's write by nothing).
    private static void besideACopyingCore(Timed t) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread busy = Thread.ofPlatform().daemon().name("penstock-bench-copying").start(() -> {
            try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
                MemorySegment src = a.allocate(64 << 20, 64);
                MemorySegment dst = a.allocate(64 << 20, 64);
                while (!done.get()) {
                    MemorySegment.copy(src, 0, dst, 0, 64 << 20);
                }
            }
        });
        try {
            t.run();
        } finally {
            done.set(true);
            busy.join();
        }
    }

    /// The states written as the pipeline's writer writes them: CHUNK_ROWS rows per append.
    private static void appendAlone(Path npy, Block states) throws Exception {
        long n = states.shape(0);
        long rowBytes = (1L << QUBITS) * DType.C128.byteSize();
        try (NpyWriter w = NpyWriter.open(npy, DType.C128, 1L << QUBITS)) {
            for (long first = 0; first < n; first += CHUNK_ROWS) {
                long k = Math.min(CHUNK_ROWS, n - first);
                w.append(states.segment().asSlice(first * rowBytes, k * rowBytes), k);
            }
            w.commit();
        }
    }

    private void readAlone(Path parquet) throws Exception {
        try (HostArena arena = Memory.newSharedArena("read"); ParquetRows r = ParquetRows.open(parquet, List.of())) {
            if (!r.readsInPlace()) { // decoded in order, by one reader
                MemorySegment buf = arena.allocateBytes((long) CHUNK_ROWS * COLS * 8);
                while (r.next(buf, CHUNK_ROWS) > 0) {
                    // the rows are read and transposed into row order: what the pipeline's source does
                }
                return;
            }
            readOnThreads(arena, r::read);
        }
    }

    /// What reads rows `[first, first + count)` into a buffer.
    private interface RowRead {
        void read(long first, int count, MemorySegment dst) throws Exception;
    }

    /// Every row read by IO_THREADS threads at once, CHUNK_ROWS at a time, taking chunks in turn.
    private void readOnThreads(HostArena arena, RowRead read) throws Exception {
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(IO_THREADS)) {
            List<java.util.concurrent.Future<?>> parts = new java.util.ArrayList<>();
            for (int p = 0; p < IO_THREADS; p++) {
                int part = p;
                parts.add(pool.submit(() -> {
                    MemorySegment buf = arena.allocateBytes((long) CHUNK_ROWS * COLS * 8);
                    for (long first = (long) part * CHUNK_ROWS; first < rows; first += (long) IO_THREADS * CHUNK_ROWS) {
                        read.read(first, (int) Math.min(CHUNK_ROWS, rows - first), buf);
                    }
                    return null;
                }));
            }
            for (var f : parts) {
                f.get();
            }
        }
    }

    /// Reader threads of the runs whose reads may run at once — Arrow, and Parquet read in place
    /// (`ParquetRows.read`) — alone and in the pipeline.
    private static final int IO_THREADS = 2;

    private static double value(long r, int c) {
        return Math.sin(0.001 * c * (r % 101 + 1)) + 1.5 + r * 1e-7 + c * 1e-11; // no repeats
    }

    /// The Arrow file holds the Parquet file's rows, bit for bit (`in`: those rows).
    private void checkSameRows(Path arrow, Block in) throws Exception {
        try (ArrowRows r = ArrowRows.open(arrow, List.of()); HostArena arena = Memory.newConfinedArena("check")) {
            Block got = arena.allocate(DType.F64, rows, COLS);
            r.read(0, rows, got.segment());
            if (got.segment().mismatch(in.segment()) != -1) {
                throw new IllegalStateException(arrow + " does not hold the rows of the Parquet file");
            }
        }
    }

    private void arrowReadAlone(Path arrow) throws Exception {
        try (ArrowRows r = ArrowRows.open(arrow, List.of()); HostArena arena = Memory.newSharedArena("read")) {
            readOnThreads(arena, r::read);
        }
    }

    private void arrowPipeline(Path arrow, Path npy) throws Exception {
        try (ArrowRows r = ArrowRows.open(arrow, List.of()); Device device = new CpuDevice();
             NpyWriter w = NpyWriter.open(npy, DType.C128, 1L << QUBITS)) {
            EncodePipeline.run(device, RowSources.of(r), w::append,
                    new EncodePipeline.Config(Encoding.AMPLITUDE, QUBITS, DType.C128, CHUNK_ROWS, 3, IO_THREADS, BadRowPolicy.FAIL));
            w.commit();
        }
    }

    /// The summaries of the Parquet pipeline's runs, in order (the measured rounds' median run
    /// gives the overlap and starvation figures).
    private final List<EncodeSummary> runs = new java.util.ArrayList<>();

    private void pipeline(Path parquet, Path npy) throws Exception {
        try (ParquetRows r = ParquetRows.open(parquet, List.of()); Device device = new CpuDevice();
             NpyWriter w = NpyWriter.open(npy, DType.C128, 1L << QUBITS)) {
            RowSource source = RowSources.of(r);
            EncodeSummary s = EncodePipeline.run(device, source, w::append,
                    new EncodePipeline.Config(Encoding.AMPLITUDE, QUBITS, DType.C128, CHUNK_ROWS, 3, IO_THREADS, BadRowPolicy.FAIL));
            runs.add(s);
            out.printf(Locale.ROOT, "pipeline run: %.0f rows/s (waiting for reads %.0f ms, staging %.0f ms, encoding %.0f ms, "
                            + "waiting for the writer %.0f ms, writing %.0f ms)%n", s.rowsPerSecond(), s.ioWaitNs() / 1e6,
                    s.transfer().slotWaitNs() / 1e6, (s.transfer().kernelNs() - s.outputWaitNs()) / 1e6, s.outputWaitNs() / 1e6,
                    s.writeNs() / 1e6);
            w.commit(); // the states land at npy, synced: the same durable write as NpyWriter.write
        }
    }

    private void writeParquet(Path file) throws Exception {
        StringBuilder sb = new StringBuilder("message rows {\n");
        for (int c = 0; c < COLS; c++) {
            sb.append("  required double f").append(c).append(";\n");
        }
        MessageType schema = MessageTypeParser.parseMessageType(sb.append("}\n").toString());
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema)
                .withConf(new PlainParquetConfiguration()).withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
                .withDictionaryEncoding(false)
                .withRowGroupSize(16L << 20).build()) {
            for (int r = 0; r < rows; r++) {
                Group g = groups.newGroup();
                for (int c = 0; c < COLS; c++) {
                    g.add(c, value(r, c));
                }
                w.write(g);
            }
        }
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
