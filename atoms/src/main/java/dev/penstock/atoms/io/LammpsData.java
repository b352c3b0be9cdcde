package dev.penstock.atoms.io;

import dev.penstock.atoms.system.AtomArray;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.io.BadInputException;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/// Reads a LAMMPS data file (`write_data`) of atom style `atomic`, `charge` or `full` into one
/// system, exactly, and refuses in one line naming the file and line whatever it would otherwise
/// read wrong.
///
/// Read: the header's `N atoms`, `N atom types`, `xlo xhi`/`ylo yhi`/`zlo zhi` and the
/// triclinic tilt line `xy xz yz` (the cell's vectors are `a = (lx, 0, 0)`,
/// `b = (xy, ly, 0)`, `c = (xz, yz, lz)`); the `Masses` section; the `Atoms` section
/// (`atomic`: `id type x y z [ix iy iz]`; `charge`: `id type q x y z […]`; `full`: `id mol type q
/// x y z […]`, the style named by the section's comment as `write_data` writes it, or by the
/// column count where that is unambiguous; image flags unwrapped along the cell's vectors; the
/// charges kept as the `initial_charges` array and molecule ids as `mol-id`, ASE's names); the
/// `Velocities` section (`id vx vy vz`). Atoms are ordered by id and every id from 1 to N must
/// appear once; the box is periodic on all three axes and shifted so that its lower corner is
/// the origin. Sections that do not describe the system (`Pair Coeffs`, …) are skipped.
///
/// Refused: an `Atoms` section of another style (`Atoms # molecular`, …, or lines whose column count
/// fits no style read, or two when the style comment is missing), bonded topology (`N bonds` with
/// N > 0, `Bonds`, `Ellipsoids`, … sections: Penstock has no bonded terms, so reading them would
/// drop them), a type outside `1..atom types`, a type without a mass.
///
/// Elements: a data file has types, not elements. Each type's atomic number is the one given to
/// `read` (in type order, as `pair_coeff * * FILE El1 El2 …` names them), else the symbol in its
/// `Masses` line's comment (`1 63.546 # Cu`, as `write_data` writes type labels), else the
/// element whose standard atomic mass is within 0.1 % of the type's mass; a type none of these
/// settles is refused, naming its `Masses` line.
public final class LammpsData {
    private static final Set<String> OTHER_STYLES_SECTIONS = Set.of("Bonds", "Angles", "Dihedrals", "Impropers", "Ellipsoids", "Lines",
            "Triangles", "Bodies");

    private LammpsData() {
    }

    /// The system described by `file`, with id `id`; `typeNumbers[t - 1]` is the atomic number of
    /// LAMMPS type `t` (give none to take them from the `Masses` section, as the class says).
    public static AtomicSystem read(Path file, long id, int... typeNumbers) throws IOException {
        return new Reader(file).read(id, typeNumbers);
    }

    /// Why `s` cannot be written as a LAMMPS data file, or null: a data file's box is a periodic
    /// cell in LAMMPS's form (a = (lx, 0, 0), b = (xy, ly, 0), c = (xz, yz, lz)).
    public static String unwritable(AtomicSystem s) {
        for (int d = 0; d < 3; d++) {
            if (!s.cell().periodic(d)) {
                return "system " + s.id() + " is not periodic along " + "abc".charAt(d) + ": a LAMMPS data file's box is a periodic cell";
            }
        }
        double[] h = s.cell().vectors();
        if (h[1] != 0 || h[2] != 0 || h[5] != 0 || !(h[0] > 0) || !(h[4] > 0) || !(h[8] > 0)) {
            return "system " + s.id() + "'s cell " + java.util.Arrays.toString(h) + " is not in LAMMPS's form (a along x, b in the xy plane, "
                    + "positive diagonal)";
        }
        return null;
    }

    /// Writes `s` as a LAMMPS data file (`read_data` reads it; so does `read`): its box from the
    /// cell (lower corner 0), one type per element in order of first appearance, each `Masses`
    /// line's comment the element's symbol, the atoms as they lie (LAMMPS maps periodic
    /// coordinates into its box), atom style `charge` where `s` carries `initial_charges` (else
    /// `atomic`), and its velocities in metal units (Å/ps, from Å per τ: `psPerTau` ps a τ).
    /// Every number is written so that it reads back to the same double. Refuses what
    /// `unwritable` names.
    public static void write(java.io.Writer out, AtomicSystem s, double psPerTau) throws IOException {
        String why = unwritable(s);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
        int n = s.atoms();
        java.util.List<Integer> elements = new java.util.ArrayList<>();
        int[] type = new int[n];
        for (int i = 0; i < n; i++) {
            int z = s.numbers()[i];
            int t = elements.indexOf(z);
            if (t < 0) {
                elements.add(z);
                t = elements.size() - 1;
            }
            type[i] = t + 1;
        }
        double[] mass = new double[elements.size()];
        for (int i = 0; i < n; i++) {
            double m = s.masses()[i];
            double was = mass[type[i] - 1];
            if (was != 0 && was != m) {
                throw new IllegalArgumentException("system " + s.id() + ": atoms of element " + Elements.symbol(s.numbers()[i]) + " have masses "
                        + was + " and " + m + ": a LAMMPS data file gives a type one mass");
            }
            mass[type[i] - 1] = m;
        }
        double[] h = s.cell().vectors();
        AtomArray q = s.arrays().get("initial_charges");
        StringBuilder b = new StringBuilder();
        b.append("LAMMPS data file written by Penstock (system ").append(s.id()).append(", metal units)\n\n");
        b.append(n).append(" atoms\n").append(elements.size()).append(" atom types\n\n");
        b.append("0 ").append(num(h[0])).append(" xlo xhi\n0 ").append(num(h[4])).append(" ylo yhi\n0 ").append(num(h[8])).append(" zlo zhi\n");
        if (h[3] != 0 || h[6] != 0 || h[7] != 0) {
            b.append(num(h[3])).append(' ').append(num(h[6])).append(' ').append(num(h[7])).append(" xy xz yz\n");
        }
        b.append("\nMasses\n\n");
        for (int t = 0; t < mass.length; t++) {
            b.append(t + 1).append(' ').append(num(mass[t])).append(" # ").append(Elements.symbol(elements.get(t))).append('\n');
        }
        b.append("\nAtoms # ").append(q == null ? "atomic" : "charge").append("\n\n");
        double[] r = s.positions();
        for (int i = 0; i < n; i++) {
            b.append(i + 1).append(' ').append(type[i]);
            if (q != null) {
                b.append(' ').append(num(q.real(i)));
            }
            b.append(' ').append(num(r[3 * i])).append(' ').append(num(r[3 * i + 1])).append(' ').append(num(r[3 * i + 2])).append('\n');
        }
        b.append("\nVelocities\n\n");
        double[] v = s.velocities();
        for (int i = 0; i < n; i++) {
            b.append(i + 1).append(' ').append(num(v[3 * i] / psPerTau)).append(' ').append(num(v[3 * i + 1] / psPerTau)).append(' ')
                    .append(num(v[3 * i + 2] / psPerTau)).append('\n');
        }
        out.write(b.toString());
    }

    /// The shortest decimal that reads back to `x` (LAMMPS parses it with `strtod`).
    private static String num(double x) {
        return Double.toString(x).replace("E", "e");
    }

    /// One read of one file: what the header and sections said so far.
    private static final class Reader {
        private final Path file;
        private final long fileBytes;
        private int atoms = -1;
        private int types = -1;
        private final double[] lo = new double[3];
        private final double[] hi = new double[3];
        private final double[] tilt = new double[3]; // xy xz yz
        private final Map<Integer, Double> typeMass = new HashMap<>();
        private final Map<Integer, Integer> typeNumberByLabel = new HashMap<>();
        private final Map<Integer, Integer> massLine = new HashMap<>();
        private double[] r;
        private double[] v;
        private int[] type;
        private int[][] image;
        private BitSet placed;
        private BitSet moving;
        private String style; // atomic, charge or full: from the Atoms section's comment, else its first line
        private double[] charge;
        private long[] molecule;

        Reader(Path file) throws IOException {
            this.file = file;
            this.fileBytes = Files.size(file);
        }

        private BadInputException bad(int line, String what) {
            return new BadInputException(file, file + ":" + line + ": " + what);
        }

        AtomicSystem read(long id, int[] typeNumbers) throws IOException {
            try (BufferedReader in = Files.newBufferedReader(file)) {
                String line = in.readLine(); // the first line is a free-form title
                int n = 1;
                String section = null;
                while ((line = in.readLine()) != null) {
                    n++;
                    int hash = line.indexOf('#');
                    String comment = hash < 0 ? "" : line.substring(hash + 1).trim();
                    String t = (hash < 0 ? line : line.substring(0, hash)).trim();
                    if (t.isEmpty()) {
                        continue;
                    }
                    String[] tok = t.split("\\s+");
                    if (section == null && header(tok, n)) {
                        continue;
                    }
                    if (Character.isLetter(t.charAt(0))) {
                        section = section(t, comment, n);
                        continue;
                    }
                    switch (section == null ? "" : section) {
                        case "Masses" -> mass(tok, comment, n);
                        case "Atoms" -> atom(tok, n);
                        case "Velocities" -> velocity(tok, n);
                        case "" -> throw bad(n, "'" + t + "' is not a header line LAMMPS writes");
                        default -> {
                            // other sections (Pair Coeffs, …) are not part of the system
                        }
                    }
                }
            }
            return system(id, typeNumbers);
        }

        /// Reads a header line; false if `tok` is not one (a section starts).
        private boolean header(String[] tok, int n) {
            if (tok.length == 2 && tok[1].equals("atoms")) {
                double count = number(tok[0], file, n);
                // every atom needs a line of at least "1 1 0 0 0": the file's size bounds the count
                if (count < 0 || count != Math.rint(count) || count > Math.max(16, fileBytes / 9)) {
                    throw bad(n, "'" + tok[0] + " atoms' is not a count this " + fileBytes + "-byte file can hold");
                }
                if (atoms >= 0) {
                    throw bad(n, "a second atom count");
                }
                atoms = (int) count;
                r = new double[3 * atoms];
                v = new double[3 * atoms];
                type = new int[atoms];
                image = new int[atoms][3];
                placed = new BitSet(atoms);
                moving = new BitSet(atoms);
                return true;
            }
            if (tok.length == 3 && tok[1].equals("atom") && tok[2].equals("types")) {
                double count = number(tok[0], file, n);
                if (count < 1 || count != Math.rint(count) || count > 1 << 20) {
                    throw bad(n, "'" + tok[0] + " atom types' is not a count of types");
                }
                types = (int) count;
                return true;
            }
            if (tok.length == 4 && tok[3].matches("[xyz]hi") && tok[2].equals(tok[3].charAt(0) + "lo")) {
                int d = tok[2].charAt(0) - 'x';
                lo[d] = number(tok[0], file, n);
                hi[d] = number(tok[1], file, n);
                return true;
            }
            if (tok.length == 6 && tok[3].equals("xy") && tok[4].equals("xz") && tok[5].equals("yz")) {
                for (int k = 0; k < 3; k++) {
                    tilt[k] = number(tok[k], file, n);
                }
                return true;
            }
            char first = tok[0].charAt(0);
            if (Character.isDigit(first) || first == '-' || first == '+' || first == '.') {
                String what = t(tok);
                if (what.matches("\\S+ (bonds|angles|dihedrals|impropers|ellipsoids|lines|triangles|bodies)")) {
                    if (number(tok[0], file, n) != 0) {
                        throw bad(n, "'" + what + "': Penstock has no bonded terms, so the " + tok[1] + " would be dropped (a system without "
                                + tok[1] + " is read)");
                    }
                    return true;
                }
                if (what.matches("\\S+ (bond|angle|dihedral|improper) types") || what.matches("\\S+ extra .*") || what.matches(".* per atom")) {
                    return true; // counts of things without any instances (their sections are refused)
                }
                throw bad(n, "'" + what + "' is not a header line this reader knows (atom styles atomic, charge, full)");
            }
            return false;
        }

        private static String t(String[] tok) {
            return String.join(" ", tok);
        }

        private String section(String t, String comment, int n) {
            if (OTHER_STYLES_SECTIONS.contains(t)) {
                throw bad(n, "a " + t + " section: Penstock has no bonded or extended-particle terms, so it would be dropped");
            }
            if ((t.equals("Atoms") || t.equals("Velocities")) && atoms < 0) {
                throw bad(n, "a " + t + " section before the atom count");
            }
            if (t.equals("Atoms") && !comment.isEmpty()) {
                if (!Set.of("atomic", "charge", "full").contains(comment)) {
                    throw bad(n, "'Atoms # " + comment + "': atom style " + comment + " is not read (atomic, charge and full are)");
                }
                style = comment;
            }
            if ((t.equals("Masses") || t.equals("Atoms")) && types < 0) {
                throw bad(n, "a " + t + " section before the 'N atom types' line");
            }
            return t;
        }

        private void mass(String[] tok, String comment, int n) {
            if (tok.length != 2) {
                throw bad(n, "expected 'type mass' in the Masses section, found '" + t(tok) + "'");
            }
            int t = typeOf(tok[0], n);
            double m = number(tok[1], file, n);
            if (!(m > 0) || !Double.isFinite(m)) {
                throw bad(n, "type " + t + " has mass " + tok[1] + ": a mass must be positive");
            }
            typeMass.put(t, m);
            massLine.put(t, n);
            String label = comment.split("\\s+")[0];
            int z = Elements.number(label);
            if (z > 0) {
                typeNumberByLabel.put(t, z);
            }
        }

        private void atom(String[] tok, int n) {
            if (style == null) { // no style comment: the first line's columns must say it
                style = switch (tok.length) {
                    case 5, 8 -> "atomic";
                    case 7, 10 -> "full";
                    case 6, 9 -> throw bad(n, tok.length + " columns fit atom style charge (id type q x y z) and molecular (id mol type x y z): "
                            + "name the style as write_data does ('Atoms # charge')");
                    default -> throw bad(n, "expected the columns of atom style atomic (id type x y z [ix iy iz]), charge or full, found "
                            + tok.length);
                };
            }
            int first = switch (style) { // the column of x
                case "atomic" -> 2;
                case "charge" -> 3;
                default -> 4;
            };
            if (tok.length != first + 3 && tok.length != first + 6) {
                String columns = switch (style) {
                    case "atomic" -> "id type x y z";
                    case "charge" -> "id type q x y z";
                    default -> "id mol type q x y z";
                };
                throw bad(n, "expected '" + columns + " [ix iy iz]' (atom style " + style + "), found " + tok.length + " columns");
            }
            int i = index(tok[0], n);
            if (placed.get(i)) {
                throw bad(n, "atom id " + (i + 1) + " appears twice in the Atoms section");
            }
            placed.set(i);
            type[i] = typeOf(tok[first == 4 ? 2 : 1], n);
            if (first > 2) {
                if (charge == null) {
                    charge = new double[atoms];
                }
                charge[i] = number(tok[first - 1], file, n);
            }
            if (first == 4) {
                double mol = number(tok[1], file, n);
                if (mol != Math.rint(mol) || mol < 0) {
                    throw bad(n, "molecule id '" + tok[1] + "' is not a whole number ≥ 0");
                }
                if (molecule == null) {
                    molecule = new long[atoms];
                }
                molecule[i] = (long) mol;
            }
            for (int c = 0; c < 3; c++) {
                r[3 * i + c] = number(tok[first + c], file, n);
                if (tok.length == first + 6) {
                    double f = number(tok[first + 3 + c], file, n);
                    if (f != Math.rint(f) || Math.abs(f) > 1 << 30) {
                        throw bad(n, "image flag '" + tok[first + 3 + c] + "' is not an integer");
                    }
                    image[i][c] = (int) f;
                }
            }
        }

        private void velocity(String[] tok, int n) {
            if (tok.length != 4) {
                throw bad(n, "expected 'id vx vy vz' in the Velocities section, found '" + t(tok) + "'");
            }
            int i = index(tok[0], n);
            if (moving.get(i)) {
                throw bad(n, "atom id " + (i + 1) + " appears twice in the Velocities section");
            }
            moving.set(i);
            for (int c = 0; c < 3; c++) {
                v[3 * i + c] = number(tok[1 + c], file, n);
            }
        }

        private int typeOf(String tok, int n) {
            double t = number(tok, file, n);
            if (t != Math.rint(t) || t < 1 || t > types) {
                throw bad(n, "type '" + tok + "' is outside 1.." + types + " (the 'atom types' line)");
            }
            return (int) t;
        }

        private int index(String tok, int line) {
            double id = number(tok, file, line);
            if (id != Math.rint(id) || id < 1 || id > atoms) {
                throw bad(line, "atom id " + tok + " outside 1.." + atoms);
            }
            return (int) id - 1;
        }

        private AtomicSystem system(long id, int[] typeNumbers) {
            if (atoms < 0) {
                throw new BadInputException(file, file + ": no 'N atoms' line: not a LAMMPS data file");
            }
            if (placed.cardinality() != atoms) {
                throw new BadInputException(file, file + ": the Atoms section lists " + placed.cardinality() + " of the " + atoms
                        + " atoms (atom id " + (placed.nextClearBit(0) + 1) + " is missing)");
            }
            if (typeNumbers.length != 0 && typeNumbers.length != types) {
                throw new IllegalArgumentException(file + " has " + types + " atom types; " + typeNumbers.length + " elements were given for them");
            }
            int[] numberOfType = new int[types + 1];
            java.util.Arrays.fill(numberOfType, -1);
            for (int i = 0; i < atoms; i++) {
                int t = type[i];
                if (numberOfType[t] < 0 && typeMass.containsKey(t)) {
                    numberOfType[t] = typeNumbers.length != 0 ? typeNumbers[t - 1] : element(t);
                }
            }
            double[] m = new double[atoms];
            int[] z = new int[atoms];
            for (int i = 0; i < atoms; i++) {
                Double mass = typeMass.get(type[i]);
                if (mass == null) {
                    throw new BadInputException(file, file + ": atom " + (i + 1) + " has type " + type[i] + " with no mass in the Masses section");
                }
                m[i] = mass;
                z[i] = numberOfType[type[i]];
            }
            double[] cell = {hi[0] - lo[0], 0, 0, tilt[0], hi[1] - lo[1], 0, tilt[1], tilt[2], hi[2] - lo[2]};
            for (int i = 0; i < atoms; i++) {
                for (int c = 0; c < 3; c++) {
                    double x = r[3 * i + c] - lo[c];
                    for (int k = 0; k < 3; k++) {
                        x += image[i][k] * cell[3 * k + c]; // unwrapped along the cell's vectors
                    }
                    r[3 * i + c] = x;
                }
            }
            AtomicSystem s;
            try {
                s = new AtomicSystem(id, r, m, z, Cell.of(cell, new boolean[] {true, true, true}));
            } catch (IllegalArgumentException e) {
                throw new BadInputException(file, file + ": " + e.getMessage(), e);
            }
            System.arraycopy(v, 0, s.velocities(), 0, v.length);
            if (charge != null) {
                s.array("initial_charges", AtomArray.reals(1, charge));
            }
            if (molecule != null) {
                s.array("mol-id", AtomArray.ints(1, molecule));
            }
            return s;
        }

        /// Type `t`'s atomic number from its Masses line: a symbol in the comment, else its mass.
        private int element(int t) {
            Integer labelled = typeNumberByLabel.get(t);
            if (labelled != null) {
                return labelled;
            }
            double mass = typeMass.get(t);
            int best = -1;
            for (int z = 1; z <= Elements.LAST; z++) {
                if (Math.abs(Elements.mass(z) - mass) <= 1e-3 * Elements.mass(z) && (best < 0
                        || Math.abs(Elements.mass(z) - mass) < Math.abs(Elements.mass(best) - mass))) {
                    best = z;
                }
            }
            if (best < 0) {
                throw bad(massLine.get(t), "type " + t + " has mass " + mass + ", no element's standard mass: name its element in a comment"
                        + " ('" + t + " " + mass + " # Ar') or give the types' elements");
            }
            return best;
        }
    }

    static double number(String tok, Path file, int line) {
        try {
            return Double.parseDouble(tok);
        } catch (NumberFormatException e) {
            throw new BadInputException(file, file + ":" + line + ": expected a number, found '" + tok + "'");
        }
    }
}
