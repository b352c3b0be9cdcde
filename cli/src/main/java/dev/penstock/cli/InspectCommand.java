package dev.penstock.cli;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.io.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/// `penstock inspect FILE`: a file's shape and type.
@Command(name = "inspect", mixinStandardHelpOptions = true, description = "Print a file's shape and element type (.npy) or schema (.parquet).")
public final class InspectCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    @Option(names = "--debug", description = "print a stack trace with any error")
    boolean debug;

    private dev.hardwood.reader.ParquetFileReader openParquet() {
        try {
            return dev.hardwood.reader.ParquetFileReader.open(dev.hardwood.InputFile.of(file));
        } catch (java.io.IOException | RuntimeException e) {
            throw new BadInputException(file, file + ": not a readable Parquet file (expected a footer: metadata length and "
                    + "the magic 'PAR1' in the last 8 bytes): " + e.getMessage(), e);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(file)) {
            throw new ParameterException(spec.commandLine(), "FILE " + file + (Files.exists(file) ? ": not a file" : ": no such file"));
        }
        String name = file.toString();
        if (!name.endsWith(".parquet") && !name.endsWith(".npy")) {
            throw new ParameterException(spec.commandLine(), "FILE " + file + ": expected a .npy or a .parquet file");
        }
        if (file.toString().endsWith(".parquet")) {
            try (var r = openParquet()) {
                System.out.println(file + ": Parquet, " + r.getFileMetaData().numRows() + " rows in "
                        + r.getFileMetaData().rowGroups().size() + " row groups, columns:");
                for (var c : r.getFileSchema().getColumns()) {
                    System.out.println("  " + c.name() + " " + c.type() + (c.maxRepetitionLevel() > 0 ? " (repeated)" : "")
                            + (c.maxDefinitionLevel() > 0 ? " (nullable)" : ""));
                }
            }
            return 0;
        }
        try (NpyFile f = NpyFile.open(file)) {
            System.out.println(file + ": .npy, dtype " + f.header().dtype().numpyDescr() + " (" + f.dtype().label() + "), shape "
                    + Arrays.toString(f.shape()) + ", data at byte " + f.header().dataOffset() + ", " + f.header().dataBytes() + " bytes");
        }
        return 0;
    }
}
