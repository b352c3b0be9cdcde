package dev.penstock.cli;

import dev.penstock.benchmarks.EncodeFileBench;
import dev.penstock.flink.FlinkEncode;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench encode-file`: Parquet → amplitude states → .npy, end to end vs each stage alone.
@Command(name = "encode-file", mixinStandardHelpOptions = true,
        description = "A ~100 MB Parquet file of float64 rows -> amplitude states -> .npy, against each stage alone.")
public final class BenchEncodeFileCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Option(names = "--rows", defaultValue = "12800", description = "rows of 1,024 float64 (default: ${DEFAULT-VALUE}, ~100 MB)")
    int rows;

    @Option(names = "--repeat", defaultValue = "3", description = "runs per measurement; the median is reported (default: ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--dir", defaultValue = "target/bench", description = "where the input is generated and kept (default: ${DEFAULT-VALUE})")
    Path dir;

    @Option(names = "--runner", defaultValue = "local", description = "local, or flink: also the Parquet input through `encode --runner "
            + "flink` (embedded MiniCluster; ranges of whole row groups), against the local pipeline's figure, and Flink's fixed cost "
            + "per job (a one-range job of 512 rows) (default: ${DEFAULT-VALUE})")
    String runner;

    @Option(names = "--parallelism", defaultValue = "2", description = "with --runner flink: tasks (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Override
    public Integer call() throws Exception {
        if (!runner.equals("local") && !runner.equals("flink") || parallelism < 1) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "options '--runner' (local or flink) and "
                    + "'--parallelism' (≥ 1): got " + runner + ", " + parallelism);
        }
        EncodeFileBench bench = new EncodeFileBench(rows, repeat, dir, output.progress());
        java.util.Map<String, String> figures = bench.run();
        if (runner.equals("flink")) {
            figures.putAll(flink(bench.parquet(), Double.parseDouble(figures.get("rows_per_s"))));
        }
        output.print(figures);
        return 0;
    }

    /// The Flink encode of `parquet`, `repeat` times (median), beside the local pipeline's
    /// `localRowsPerS` measured in the same run, and the fixed cost of a job (a 512-row input).
    private java.util.Map<String, String> flink(Path parquet, double localRowsPerS) throws Exception {
        java.io.PrintStream quiet = new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
        java.util.List<FlinkEncode.Range> ranges = FlinkEncode.parquetRanges(dev.penstock.formats.parquet.ParquetRowGroups.rowsOf(parquet),
                EncodeFileBench.COLS, parallelism);
        FlinkEncode.Spec spec = new FlinkEncode.Spec(parquet.toAbsolutePath().toString(), java.util.List.of(), null, "amplitude",
                EncodeFileBench.QUBITS, "c128", EncodeFileBench.CHUNK_ROWS, false, "");
        Path out = dir.resolve("encode-file-flink.npy");
        double[] wall = new double[repeat];
        double[] job = new double[repeat];
        for (int r = 0; r < repeat; r++) {
            FlinkEncodeRun.Result res = FlinkEncodeRun.run(quiet, spec, ranges, rows, dev.penstock.memory.DType.C128, parallelism, 1000, out);
            wall[r] = res.wallS();
            job[r] = res.jobS();
            output.progress().printf(java.util.Locale.ROOT, "flink run: %.3f s (the job %.3f s, %d ranges)%n", res.wallS(), res.jobS(),
                    res.ranges());
        }
        // the fixed cost: a one-range job over a small .npy input
        Path small = dir.resolve("encode-file-small.npy");
        ExampleRows.write(small, EncodeFileBench.CHUNK_ROWS, EncodeFileBench.COLS, dev.penstock.quantum.Encoding.AMPLITUDE, quiet, false);
        FlinkEncode.Spec tiny = new FlinkEncode.Spec(small.toAbsolutePath().toString(), java.util.List.of(), null, "amplitude",
                EncodeFileBench.QUBITS, "c128", EncodeFileBench.CHUNK_ROWS, false, "");
        double[] fixed = new double[repeat];
        for (int r = 0; r < repeat; r++) {
            fixed[r] = FlinkEncodeRun.run(quiet, tiny, FlinkEncode.ranges(EncodeFileBench.CHUNK_ROWS, EncodeFileBench.CHUNK_ROWS, 1),
                    EncodeFileBench.CHUNK_ROWS, dev.penstock.memory.DType.C128, 1, 1000, out).jobS();
        }
        for (Path p : new Path[] {out, Path.of(out + ".rows.npy"), Path.of(out + ".manifest.json"), small}) {
            java.nio.file.Files.deleteIfExists(p);
        }
        java.util.Arrays.sort(wall);
        java.util.Arrays.sort(job);
        java.util.Arrays.sort(fixed);
        double flinkRowsPerS = rows / wall[repeat / 2];
        java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("flink_parallelism", Integer.toString(parallelism));
        m.put("flink_ranges", Integer.toString(ranges.size()));
        m.put("flink_rows_per_s", String.format(java.util.Locale.ROOT, "%.0f", flinkRowsPerS));
        m.put("flink_job_s", String.format(java.util.Locale.ROOT, "%.3f", job[repeat / 2]));
        m.put("flink_fixed_cost_s", String.format(java.util.Locale.ROOT, "%.3f", fixed[repeat / 2]));
        m.put("ratio_flink_vs_local", String.format(java.util.Locale.ROOT, "%.3f", flinkRowsPerS / localRowsPerS));
        return m;
    }
}
