package dev.penstock.cli;

import dev.penstock.formats.arrow.ArrowRows;
import dev.penstock.formats.hdf5.Hdf5Rows;
import dev.penstock.formats.npy.NpyFile;
import dev.penstock.io.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/// `penstock inspect FILE`: a file's shape and type.
@Command(name = "inspect", mixinStandardHelpOptions = true,
        footer = {"%nExamples:", "  penstock inspect rows.npy", "  penstock inspect table.arrow", "  penstock inspect data.h5", ""},
        description = "Print a file's shape and element type (.npy), schema (.parquet), columns (Arrow IPC) or datasets (HDF5).")
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
        boolean arrow = name.endsWith(".arrow") || name.endsWith(".feather") || name.endsWith(".arrows");
        boolean hdf5 = name.endsWith(".h5") || name.endsWith(".hdf5");
        if (!name.endsWith(".parquet") && !name.endsWith(".npy") && !arrow && !hdf5) {
            throw new ParameterException(spec.commandLine(), "FILE " + file + ": expected a .npy, .parquet, .arrow/.feather/.arrows or .h5/.hdf5 file");
        }
        if (arrow) {
            try (ArrowRows r = ArrowRows.open(file, List.of())) {
                System.out.println(file + ": Arrow IPC, " + r.rows() + " rows in " + r.batches() + " record batches; read by default: "
                        + (r.listMode() ? "list column " + r.columnNames().getFirst() : "columns " + String.join(", ",
                        r.columnNames().subList(0, Math.min(20, r.columnNames().size())))
                        + (r.columnNames().size() > 20 ? " … and " + (r.columnNames().size() - 20) + " more" : ""))
                        + " (" + r.rowLength() + " values per row)");
            }
            return 0;
        }
        if (hdf5) {
            System.out.println(file + ": HDF5, datasets:");
            for (String d : Hdf5Rows.describe(file)) {
                System.out.println("  " + d);
            }
            return 0;
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
