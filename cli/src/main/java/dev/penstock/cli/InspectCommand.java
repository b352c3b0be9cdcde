package dev.penstock.cli;

import dev.penstock.formats.arrow.ArrowRows;
import dev.penstock.formats.hdf5.Hdf5Rows;
import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.parquet.ParquetRows;
import dev.penstock.io.BadInputException;
import dev.penstock.io.OutputSet;
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
        footer = {"%nExamples:", "  penstock inspect rows.npy", "  penstock inspect table.arrow", "  penstock inspect data.h5 --json", ""},
        description = "Print a file's shape and element type (.npy), schema (.parquet), columns (Arrow IPC) or datasets (HDF5).")
public final class InspectCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    @Option(names = "--debug", description = "print a stack trace with any error")
    boolean debug;

    @Option(names = "--json", description = "print what the text says as one JSON object: file, format, and per format rows, "
            + "row_groups/batches, columns (name, type, nullable, repeated), dtype, shape, datasets (path, shape, type, readable)")
    boolean json;

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
        OutputSet.finishInterrupted(file); // a Penstock output a killed run was committing: finished first
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
                if (json) {
                    System.out.println("{\"file\": " + JsonFigures.quote(name) + ", \"format\": \"arrow\", \"rows\": " + r.rows()
                            + ", \"batches\": " + r.batches() + ", \"list_column\": " + (r.listMode() ? JsonFigures.quote(r.columnNames().getFirst())
                            : "null") + ", \"columns\": " + strings(r.columnNames()) + ", \"not_read\": " + strings(r.leftOutColumns()) + ", \"values_per_row\": "
                            + r.rowLength() + "}");
                    return 0;
                }
                System.out.println(file + ": Arrow IPC, " + r.rows() + " rows in " + r.batches() + " record batches; read by default: "
                        + (r.listMode() ? "list column " + r.columnNames().getFirst() : "columns " + String.join(", ",
                        r.columnNames().subList(0, Math.min(20, r.columnNames().size())))
                        + (r.columnNames().size() > 20 ? " … and " + (r.columnNames().size() - 20) + " more" : ""))
                        + " (" + r.rowLength() + " values per row" + notRead(r.leftOutColumns()) + ")");
            }
            return 0;
        }
        if (hdf5) {
            if (json) {
                StringBuilder b = new StringBuilder();
                for (Hdf5Rows.DatasetInfo d : Hdf5Rows.datasets(file)) {
                    b.append(b.isEmpty() ? "" : ", ").append("{\"path\": ").append(JsonFigures.quote(d.path())).append(", \"shape\": ")
                            .append(Arrays.toString(d.shape())).append(", \"type\": ").append(JsonFigures.quote(d.type()))
                            .append(", \"readable\": ").append(d.readable()).append('}');
                }
                System.out.println("{\"file\": " + JsonFigures.quote(name) + ", \"format\": \"hdf5\", \"datasets\": [" + b + "]}");
                return 0;
            }
            System.out.println(file + ": HDF5, datasets:");
            for (String d : Hdf5Rows.describe(file)) {
                System.out.println("  " + d);
            }
            return 0;
        }
        if (file.toString().endsWith(".parquet")) {
            try (var r = openParquet()) {
                if (json) {
                    StringBuilder b = new StringBuilder();
                    for (var c : r.getFileSchema().getColumns()) {
                        b.append(b.isEmpty() ? "" : ", ").append("{\"name\": ").append(JsonFigures.quote(c.name())).append(", \"type\": ")
                                .append(JsonFigures.quote(String.valueOf(c.type()))).append(", \"nullable\": ").append(c.maxDefinitionLevel() > 0)
                                .append(", \"repeated\": ").append(c.maxRepetitionLevel() > 0).append('}');
                    }
                    List<String> read = List.of();
                    List<String> notRead = List.of();
                    try (ParquetRows rows = ParquetRows.open(file, List.of())) {
                        read = rows.columnNames();
                        notRead = rows.leftOutColumns();
                    } catch (BadInputException e) {
                        // nothing encode would read by default: empty lists
                    }
                    System.out.println("{\"file\": " + JsonFigures.quote(name) + ", \"format\": \"parquet\", \"rows\": "
                            + r.getFileMetaData().numRows() + ", \"row_groups\": " + r.getFileMetaData().rowGroups().size() + ", \"columns\": ["
                            + b + "], \"read_by_default\": " + strings(read) + ", \"not_read\": " + strings(notRead) + "}");
                    return 0;
                }
                System.out.println(file + ": Parquet, " + r.getFileMetaData().numRows() + " rows in "
                        + r.getFileMetaData().rowGroups().size() + " row groups, columns:");
                for (var c : r.getFileSchema().getColumns()) {
                    System.out.println("  " + c.name() + " " + c.type() + (c.maxRepetitionLevel() > 0 ? " (repeated)" : "")
                            + (c.maxDefinitionLevel() > 0 ? " (nullable)" : ""));
                }
                try (ParquetRows rows = ParquetRows.open(file, List.of())) {
                    System.out.println("read by default: " + (rows.listMode() ? "list column " : "columns ") + String.join(", ", rows.columnNames())
                            + " (" + rows.rowLength() + " values per row" + notRead(rows.leftOutColumns()) + ")");
                } catch (BadInputException e) {
                    System.out.println("read by default: nothing (" + e.getMessage() + ")");
                }
            }
            return 0;
        }
        try (NpyFile f = NpyFile.open(file)) {
            if (json) {
                System.out.println("{\"file\": " + JsonFigures.quote(name) + ", \"format\": \"npy\", \"dtype\": "
                        + JsonFigures.quote(f.header().dtype().numpyDescr()) + ", \"shape\": " + Arrays.toString(f.shape())
                        + ", \"data_offset\": " + f.header().dataOffset() + ", \"data_bytes\": " + f.header().dataBytes() + "}");
                return 0;
            }
            System.out.println(file + ": .npy, dtype " + f.header().dtype().numpyDescr() + " (" + f.dtype().label() + "), shape "
                    + Arrays.toString(f.shape()) + ", data at byte " + f.header().dataOffset() + ", " + f.header().dataBytes() + " bytes");
        }
        return 0;
    }

    private static String strings(List<String> values) {
        StringBuilder b = new StringBuilder("[");
        for (String v : values) {
            b.append(b.length() == 1 ? "" : ", ").append(JsonFigures.quote(v));
        }
        return b.append(']').toString();
    }

    private static String notRead(List<String> leftOut) {
        return leftOut.isEmpty() ? "" : "; not read: " + String.join(", ", leftOut);
    }
}
