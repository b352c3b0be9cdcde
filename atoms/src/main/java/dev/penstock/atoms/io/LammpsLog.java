package dev.penstock.atoms.io;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// The first thermo table of a LAMMPS log file (`log.lammps`): the column names of its
/// `Step …` header, one row of numbers per thermo output, and the `Loop time of` seconds that
/// close it. Errors name the file and line.
///
/// @param columns the header's column names, as LAMMPS writes them (`Step`, `TotEng`, …)
/// @param rows one array per thermo line, in column order
/// @param loopSeconds the run's loop time in seconds
public record LammpsLog(List<String> columns, List<double[]> rows, double loopSeconds) {

    /// Reads the first thermo table of `file`.
    public static LammpsLog read(Path file) throws IOException {
        List<String> columns = null;
        List<double[]> rows = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                String t = line.trim();
                if (columns == null) {
                    if (t.startsWith("Step ")) {
                        columns = List.of(t.split("\\s+"));
                    }
                    continue;
                }
                if (t.startsWith("WARNING")) {
                    continue; // LAMMPS may interleave warnings with the thermo lines
                }
                String[] tok = t.split("\\s+");
                if (t.startsWith("Loop time of") && tok.length > 3) {
                    return new LammpsLog(columns, List.copyOf(rows), LammpsData.number(tok[3], file, n));
                }
                if (tok.length != columns.size()) {
                    throw new IllegalArgumentException(file + ":" + n + ": expected " + columns.size()
                            + " thermo columns " + columns + ", found " + tok.length + ": '" + t + "'");
                }
                double[] row = new double[tok.length];
                for (int c = 0; c < tok.length; c++) {
                    row[c] = LammpsData.number(tok[c], file, n);
                }
                rows.add(row);
            }
        }
        throw new IllegalArgumentException(file + ": " + (columns == null ? "no thermo table (no 'Step' header)"
                : "thermo table has no 'Loop time of' line (the run did not finish)"));
    }

    /// The values of column `name` (as in `columns`), one per row.
    public double[] column(String name) {
        int c = columns.indexOf(name);
        if (c < 0) {
            throw new IllegalArgumentException("no thermo column '" + name + "' in " + columns);
        }
        return rows.stream().mapToDouble(r -> r[c]).toArray();
    }

    @Override
    public String toString() {
        return "LammpsLog" + columns + " × " + rows.size() + " rows, loop " + loopSeconds + " s"
                + (rows.isEmpty() ? "" : ", first " + Arrays.toString(rows.getFirst()));
    }
}
