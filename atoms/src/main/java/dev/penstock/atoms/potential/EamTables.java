package dev.penstock.atoms.potential;

import dev.penstock.atoms.io.Elements;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/// The tabulated functions of an embedded-atom potential, read from a LAMMPS potential file and
/// prepared exactly as LAMMPS's `pair_style eam`, `eam/alloy` and `eam/fs` prepare them, so that
/// energies agree with LAMMPS to rounding, not to interpolation error:
///
/// ```
///   file                      functions (1-based grids, LAMMPS's layout)
///   funcfl  *.eam             F(ρ) on Nρ points, Z(r) and ρ(r) on Nr points, one element;
///                             resampled onto the grid by 4-point Lagrange interpolation
///                             (LAMMPS's `file2array`), φ(r)·r = 27.2·0.529·Z(r)²
///   setfl   *.eam.alloy       per element F(ρ), ρ(r); then φ(r)·r for every pair i ≥ j
///   fs      *.eam.fs          per element F(ρ), then ρ_ij(r) for every j; then φ(r)·r, i ≥ j
/// ```
///
/// Every function becomes a cubic per grid interval (`interpolate`: slopes from a 5-point
/// stencil, LAMMPS's `array2spline`), seven coefficients per point: 0–2 the derivative's, 3–6 the
/// value's. `frhoOf(e)`, `rhorOf(i, j)` (the density at an atom of element j due to one of
/// element i… as LAMMPS indexes it: `rhor(type2rhor[jtype][itype])` is summed into ρ_i) and
/// `z2rOf(i, j)` give the spline of each role.
///
/// A missing, bad or truncated file fails when read, naming the file and the line.
final class EamTables {
    /// The three LAMMPS formats.
    enum Format { FUNCFL, SETFL, FS }

    final Path file;
    final Format format;
    final String[] elements;   // symbols, in file order
    final int[] numbers;       // atomic numbers
    final double[] masses;
    final int nrho;
    final int nr;
    final double drho;
    final double dr;
    final double rhomax;
    final double cut;
    final double[][] frhoSpline; // [function][7 · (n + 1)]
    final double[][] rhorSpline;
    final double[][] z2rSpline;

    private EamTables(Path file, Format format, String[] elements, int[] numbers, double[] masses, int nrho, double drho, int nr, double dr,
                      double rhomax, double cut, double[][] frho, double[][] rhor, double[][] z2r) {
        this.file = file;
        this.format = format;
        this.elements = elements;
        this.numbers = numbers;
        this.masses = masses;
        this.nrho = nrho;
        this.drho = drho;
        this.nr = nr;
        this.dr = dr;
        this.rhomax = rhomax;
        this.cut = cut;
        this.frhoSpline = splines(frho, nrho, drho);
        this.rhorSpline = splines(rhor, nr, dr);
        this.z2rSpline = splines(z2r, nr, dr);
    }

    /// The format a file name implies: `.eam.alloy` setfl, `.eam.fs` Finnis–Sinclair, `.eam` funcfl.
    static Format formatOf(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".eam.alloy") || name.endsWith(".alloy")) {
            return Format.SETFL;
        }
        if (name.endsWith(".eam.fs") || name.endsWith(".fs")) {
            return Format.FS;
        }
        if (name.endsWith(".eam")) {
            return Format.FUNCFL;
        }
        throw new IllegalArgumentException(file + ": not an EAM potential file name (expected *.eam (funcfl), *.eam.alloy (setfl) or "
                + "*.eam.fs (Finnis-Sinclair))");
    }

    /// Reads `file` in the format its name implies.
    static EamTables read(Path file) throws IOException {
        Format format = formatOf(file);
        List<String> lines = PotentialFiles.lines(file, "EAM");
        Numbers in = new Numbers(file, lines);
        return switch (format) {
            case FUNCFL -> funcfl(file, in);
            case SETFL, FS -> setflOrFs(file, in, format);
        };
    }

    /// The index of the F(ρ) spline of element `e`.
    int frhoOf(int e) {
        return e;
    }

    /// The index of the ρ(r) spline LAMMPS's `type2rhor[i][j]` names for elements i, j.
    int rhorOf(int i, int j) {
        return format == Format.FS ? i * elements.length + j : i;
    }

    /// The index of the φ(r)·r spline of the pair of elements i, j (lower triangle).
    int z2rOf(int i, int j) {
        int row = Math.max(i, j);
        int col = Math.min(i, j);
        return row * (row + 1) / 2 + col;
    }

    // ------------------------------------------------------------------ funcfl

    private static EamTables funcfl(Path file, Numbers in) {
        in.skipLine(); // comment
        String[] head = in.fields(2, "atomic number and mass");
        int z = in.integer(head[0], "atomic number");
        double mass = in.number(head[1], "mass");
        String[] grid = in.fields(5, "Nrho drho Nr dr cutoff");
        int fileNrho = in.integer(grid[0], "Nrho");
        double fileDrho = in.number(grid[1], "drho");
        int fileNr = in.integer(grid[2], "Nr");
        double fileDr = in.number(grid[3], "dr");
        double cut = in.number(grid[4], "cutoff");
        in.checkGrid(fileNrho, fileDrho, fileNr, fileDr, cut);
        String symbol = z >= 1 && z <= Elements.LAST ? Elements.symbol(z) : "Z" + z;
        double[] frho = in.values(fileNrho, "F(rho) of " + symbol);
        double[] zr = in.values(fileNr, "Z(r) of " + symbol);
        double[] rhor = in.values(fileNr, "rho(r) of " + symbol);
        // LAMMPS's file2array for one funcfl file: the grid from the file's spacings and ranges,
        // each function resampled onto it (exactly, for one file, up to rounding at the ends)
        double rmax = (fileNr - 1) * fileDr;
        double rhomax = (fileNrho - 1) * fileDrho;
        int nr = (int) (rmax / fileDr + 0.5);
        int nrho = (int) (rhomax / fileDrho + 0.5);
        double[] f = new double[nrho + 1];
        for (int m = 1; m <= nrho; m++) {
            f[m] = lagrange(frho, fileNrho, fileDrho, (m - 1) * fileDrho);
        }
        double[] rho = new double[nr + 1];
        double[] z2r = new double[nr + 1];
        for (int m = 1; m <= nr; m++) {
            double r = (m - 1) * fileDr;
            rho[m] = lagrange(rhor, fileNr, fileDr, r);
            double zi = lagrange(zr, fileNr, fileDr, r);
            z2r[m] = 27.2 * 0.529 * zi * zi; // Hartree · Bohr in eV · Å, as LAMMPS converts
        }
        return new EamTables(file, Format.FUNCFL, new String[] {symbol}, new int[] {z}, new double[] {mass}, nrho, fileDrho, nr, fileDr,
                rhomax, cut, new double[][] {f}, new double[][] {rho}, new double[][] {z2r});
    }

    /// LAMMPS's 4-point Lagrange resampling of a 1-based table `v` of `n` points `delta` apart, at `x`.
    private static double lagrange(double[] v, int n, double delta, double x) {
        double sixth = 1.0 / 6.0;
        double p = x / delta + 1.0;
        int k = (int) p;
        k = Math.min(k, n - 2);
        k = Math.max(k, 2);
        p -= k;
        p = Math.min(p, 2.0);
        double cof1 = -sixth * p * (p - 1.0) * (p - 2.0);
        double cof2 = 0.5 * (p * p - 1.0) * (p - 2.0);
        double cof3 = -0.5 * p * (p + 1.0) * (p - 2.0);
        double cof4 = sixth * p * (p * p - 1.0);
        return cof1 * v[k - 1] + cof2 * v[k] + cof3 * v[k + 1] + cof4 * v[k + 2];
    }

    // ------------------------------------------------------------------ setfl / fs

    private static EamTables setflOrFs(Path file, Numbers in, Format format) {
        in.skipLine();
        in.skipLine();
        in.skipLine();
        String[] head = in.fieldsAtLeast(1, "Nelements Element1 Element2 …");
        int n = in.integer(head[0], "Nelements");
        if (n < 1 || head.length < n + 1) {
            throw in.bad("expected Nelements and that many element symbols, got '" + String.join(" ", head) + "'");
        }
        String[] elements = new String[n];
        System.arraycopy(head, 1, elements, 0, n);
        String[] grid = in.fields(5, "Nrho drho Nr dr cutoff");
        int nrho = in.integer(grid[0], "Nrho");
        double drho = in.number(grid[1], "drho");
        int nr = in.integer(grid[2], "Nr");
        double dr = in.number(grid[3], "dr");
        double cut = in.number(grid[4], "cutoff");
        in.checkGrid(nrho, drho, nr, dr, cut);
        int[] numbers = new int[n];
        double[] masses = new double[n];
        double[][] frho = new double[n][];
        double[][] rhor = new double[format == Format.FS ? n * n : n][];
        for (int i = 0; i < n; i++) {
            String[] el = in.fieldsAtLeast(2, "atomic number, mass, lattice constant, lattice type of " + elements[i]);
            numbers[i] = in.integer(el[0], "atomic number of " + elements[i]);
            masses[i] = in.number(el[1], "mass of " + elements[i]);
            frho[i] = in.values(nrho, "F(rho) of " + elements[i]);
            if (format == Format.FS) {
                for (int j = 0; j < n; j++) {
                    rhor[i * n + j] = in.values(nr, "rho(r) of " + elements[i] + " at " + elements[j]);
                }
            } else {
                rhor[i] = in.values(nr, "rho(r) of " + elements[i]);
            }
        }
        double[][] z2r = new double[n * (n + 1) / 2][];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                z2r[i * (i + 1) / 2 + j] = in.values(nr, "r*phi(r) of " + elements[i] + "-" + elements[j]);
            }
        }
        return new EamTables(file, format, elements, numbers, masses, nrho, drho, nr, dr, (nrho - 1) * drho, cut, frho, rhor, z2r);
    }

    // ------------------------------------------------------------------ splines

    private static double[][] splines(double[][] functions, int n, double delta) {
        double[][] out = new double[functions.length][];
        for (int i = 0; i < functions.length; i++) {
            out[i] = interpolate(n, delta, functions[i]);
        }
        return out;
    }

    /// LAMMPS's `PairEAM::interpolate`: for the 1-based table `f` of `n` points `delta` apart, the
    /// seven coefficients per point `m` at `7m … 7m + 6`.
    static double[] interpolate(int n, double delta, double[] f) {
        double[] s = new double[7 * (n + 1)];
        for (int m = 1; m <= n; m++) {
            s[7 * m + 6] = f[m];
        }
        s[7 + 5] = s[14 + 6] - s[7 + 6];
        s[14 + 5] = 0.5 * (s[21 + 6] - s[7 + 6]);
        s[7 * (n - 1) + 5] = 0.5 * (s[7 * n + 6] - s[7 * (n - 2) + 6]);
        s[7 * n + 5] = s[7 * n + 6] - s[7 * (n - 1) + 6];
        for (int m = 3; m <= n - 2; m++) {
            s[7 * m + 5] = ((s[7 * (m - 2) + 6] - s[7 * (m + 2) + 6]) + 8.0 * (s[7 * (m + 1) + 6] - s[7 * (m - 1) + 6])) / 12.0;
        }
        for (int m = 1; m <= n - 1; m++) {
            s[7 * m + 4] = 3.0 * (s[7 * (m + 1) + 6] - s[7 * m + 6]) - 2.0 * s[7 * m + 5] - s[7 * (m + 1) + 5];
            s[7 * m + 3] = s[7 * m + 5] + s[7 * (m + 1) + 5] - 2.0 * (s[7 * (m + 1) + 6] - s[7 * m + 6]);
        }
        s[7 * n + 4] = 0.0;
        s[7 * n + 3] = 0.0;
        for (int m = 1; m <= n; m++) {
            s[7 * m + 2] = s[7 * m + 5] / delta;
            s[7 * m + 1] = 2.0 * s[7 * m + 4] / delta;
            s[7 * m] = 3.0 * s[7 * m + 3] / delta;
        }
        return s;
    }

    /// The file's lines as a stream of header lines and free-format numbers, with the line of
    /// each for error messages.
    private static final class Numbers {
        private final Path file;
        private final List<String> lines;
        private int line;           // next line to read (0-based)
        private List<String> pending = new ArrayList<>(); // numbers left on the current line

        Numbers(Path file, List<String> lines) {
            this.file = file;
            this.lines = lines;
        }

        void skipLine() {
            next("a header line");
        }

        String[] fields(int n, String what) {
            return fieldsAtLeast(n, what);
        }

        String[] fieldsAtLeast(int n, String what) {
            String t = next(what).strip();
            String[] f = t.isEmpty() ? new String[0] : t.split("\\s+");
            if (f.length < n) {
                throw bad("expected " + what + ", got '" + t + "'");
            }
            return f;
        }

        private String next(String what) {
            if (!pending.isEmpty()) {
                throw bad("expected " + what + " on a line of its own, but the line goes on with '" + pending.getFirst() + "' …");
            }
            if (line >= lines.size()) {
                throw new IllegalArgumentException(file + ": the file ends at line " + lines.size() + " before " + what + " (truncated?)");
            }
            return lines.get(line++);
        }

        /// `count` numbers into a 1-based array (index 0 unused), across as many lines as they take.
        double[] values(int count, String what) {
            double[] v = new double[count + 1];
            int got = 0;
            while (got < count) {
                if (pending.isEmpty()) {
                    if (line >= lines.size()) {
                        throw new IllegalArgumentException(file + ": the file ends at line " + lines.size() + " after " + got + " of the "
                                + count + " values of " + what + " (truncated?)");
                    }
                    String t = lines.get(line++).strip();
                    if (!t.isEmpty()) {
                        pending = new ArrayList<>(List.of(t.split("\\s+")));
                    }
                    continue;
                }
                String tok = pending.removeFirst();
                v[++got] = number(tok, "value " + got + " of " + what);
            }
            return v; // numbers left on the line start the next table

        }

        double number(String tok, String what) {
            try {
                double x = Double.parseDouble(tok.replace('D', 'E').replace('d', 'e'));
                if (!Double.isFinite(x)) {
                    throw bad(what + " is " + tok);
                }
                return x;
            } catch (NumberFormatException e) {
                throw bad(what + ": '" + tok + "' is not a number");
            }
        }

        int integer(String tok, String what) {
            try {
                return Integer.parseInt(tok);
            } catch (NumberFormatException e) {
                throw bad(what + ": '" + tok + "' is not a whole number");
            }
        }

        void checkGrid(int nrho, double drho, int nr, double dr, double cut) {
            if (nrho < 5 || nr < 5 || !(drho > 0) || !(dr > 0) || !(cut > 0)) {
                throw bad("the grid needs Nrho, Nr ≥ 5 and drho, dr, cutoff > 0, got " + nrho + " " + drho + " " + nr + " " + dr + " " + cut);
            }
        }

        IllegalArgumentException bad(String why) {
            return new IllegalArgumentException(file + " line " + line + ": " + why);
        }
    }
}
