package dev.penstock.cli;

import dev.penstock.formats.npy.NpyFile;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/// `penstock inspect FILE`: a file's shape and type.
@Command(name = "inspect", mixinStandardHelpOptions = true, description = "Print a file's shape and element type (.npy) or schema (.parquet).")
public final class InspectCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    @Override
    public Integer call() throws Exception {
        if (file.toString().endsWith(".parquet")) {
            try (var r = dev.hardwood.reader.ParquetFileReader.open(dev.hardwood.InputFile.of(file))) {
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
