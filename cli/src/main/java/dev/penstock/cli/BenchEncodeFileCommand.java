package dev.penstock.cli;

import dev.penstock.benchmarks.EncodeFileBench;
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

    @Override
    public Integer call() throws Exception {
        output.print(new EncodeFileBench(rows, repeat, dir, output.progress()).run());
        return 0;
    }
}
