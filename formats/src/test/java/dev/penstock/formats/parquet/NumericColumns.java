package dev.penstock.formats.parquet;

import dev.hardwood.InputFile;
import dev.hardwood.metadata.PhysicalType;
import dev.hardwood.reader.ParquetFileReader;
import dev.hardwood.schema.ColumnSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/// Every flat numeric column of a Parquet file, in schema order: the tests that check how each
/// type reads name them all (the default choice, `DefaultColumns`, leaves integer columns out
/// beside float ones). A file whose schema does not read gets none (the default choice).
final class NumericColumns {
    private static final Set<PhysicalType> NUMERIC = Set.of(PhysicalType.DOUBLE, PhysicalType.FLOAT, PhysicalType.INT32, PhysicalType.INT64);

    private NumericColumns() {
    }

    static List<String> of(Path file) {
        try (ParquetFileReader reader = ParquetFileReader.open(InputFile.of(file))) {
            List<String> names = new ArrayList<>();
            for (ColumnSchema c : reader.getFileSchema().getColumns()) {
                if (NUMERIC.contains(c.type()) && c.maxRepetitionLevel() == 0) {
                    names.add(c.name());
                }
            }
            return names;
        } catch (Exception e) {
            return List.of();
        }
    }
}
