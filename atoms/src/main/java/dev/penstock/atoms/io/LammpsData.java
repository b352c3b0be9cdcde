package dev.penstock.atoms.io;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.io.BadInputException;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/// Reads the parts of a LAMMPS data file (`write_data`, atom style `atomic`) that start a
/// simulation: the box, masses per type, the `Atoms` section (id type x y z [ix iy iz]) and
/// the `Velocities` section (id vx vy vz). Atoms are ordered by id; the box is periodic on all
/// three axes and shifted so that its lower corner is the origin. Errors name the file and line.
public final class LammpsData {
    private LammpsData() {
    }

    /// The system described by `file`, with id `id`; atomic numbers are the LAMMPS types.
    public static AtomicSystem read(Path file, long id) throws IOException {
        int atoms = -1;
        double[] lo = new double[3];
        double[] hi = new double[3];
        Map<Integer, Double> typeMass = new HashMap<>();
        double[] r = null;
        double[] v = null;
        int[] type = null;
        long fileBytes = Files.size(file);
        try (BufferedReader in = Files.newBufferedReader(file)) {
            String line = in.readLine(); // the first line is a free-form title
            int n = 1;
            String section = null;
            while ((line = in.readLine()) != null) {
                n++;
                String t = line.replaceAll("#.*", "").trim();
                if (t.isEmpty()) {
                    continue;
                }
                String[] tok = t.split("\\s+");
                if (tok.length >= 2 && tok[1].equals("atoms") && section == null) {
                    double count = number(tok[0], file, n);
                    // every atom needs a line of at least "1 1 0 0 0": the file's size bounds the count
                    if (count < 0 || count != Math.rint(count) || count > Math.max(16, fileBytes / 9)) {
                        throw new BadInputException(file, file + ":" + n + ": '" + tok[0] + " atoms' is not a count this "
                                + fileBytes + "-byte file can hold");
                    }
                    if (atoms >= 0) {
                        throw new BadInputException(file, file + ":" + n + ": a second atom count");
                    }
                    atoms = (int) count;
                    r = new double[3 * atoms];
                    v = new double[3 * atoms];
                    type = new int[atoms];
                    continue;
                }
                if (tok.length == 4 && tok[3].matches("[xyz]hi") && tok[2].equals(tok[3].charAt(0) + "lo") && section == null) {
                    int d = tok[2].charAt(0) - 'x';
                    lo[d] = number(tok[0], file, n);
                    hi[d] = number(tok[1], file, n);
                    continue;
                }
                if (Character.isLetter(t.charAt(0))) {
                    section = tok[0];
                    if (atoms < 0 && (section.equals("Atoms") || section.equals("Velocities"))) {
                        throw new BadInputException(file, file + ":" + n + ": a " + section + " section before the atom count");
                    }
                    continue;
                }
                String sec = section == null ? "" : section;
                int needed = switch (sec) {
                    case "Masses" -> 2;
                    case "Atoms" -> 5;
                    case "Velocities" -> 4;
                    default -> 0;
                };
                if (tok.length < needed) {
                    throw new BadInputException(file, file + ":" + n + ": expected " + needed + " numbers in a " + sec + " line, found '"
                            + t + "'");
                }
                switch (sec) {
                    case "Masses" -> typeMass.put((int) number(tok[0], file, n), number(tok[1], file, n));
                    case "Atoms" -> {
                        if (tok.length < 5) {
                            throw new BadInputException(file, file + ":" + n + ": expected 'id type x y z' (atom style atomic), found " + t);
                        }
                        int i = index(tok[0], atoms, file, n);
                        type[i] = (int) number(tok[1], file, n);
                        for (int c = 0; c < 3; c++) {
                            double x = number(tok[2 + c], file, n);
                            if (tok.length >= 8) {
                                x += number(tok[5 + c], file, n) * (hi[c] - lo[c]); // image flags
                            }
                            r[3 * i + c] = x - lo[c];
                        }
                    }
                    case "Velocities" -> {
                        int i = index(tok[0], atoms, file, n);
                        for (int c = 0; c < 3; c++) {
                            v[3 * i + c] = number(tok[1 + c], file, n);
                        }
                    }
                    default -> {
                        // other sections (Pair Coeffs, …) are not part of the system
                    }
                }
            }
        }
        if (atoms < 0) {
            throw new BadInputException(file, file + ": no 'N atoms' line: not a LAMMPS data file");
        }
        double[] m = new double[atoms];
        for (int i = 0; i < atoms; i++) {
            Double mass = typeMass.get(type[i]);
            if (mass == null) {
                throw new BadInputException(file, file + ": atom " + (i + 1) + " has type " + type[i] + " with no mass in the Masses section");
            }
            m[i] = mass;
        }
        double[] box = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
        AtomicSystem s;
        try {
            s = new AtomicSystem(id, r, m, type, box, new boolean[] {true, true, true});
        } catch (IllegalArgumentException e) {
            throw new BadInputException(file, file + ": " + e.getMessage(), e);
        }
        System.arraycopy(v, 0, s.velocities(), 0, v.length);
        return s;
    }

    private static int index(String tok, int atoms, Path file, int line) {
        int id = (int) number(tok, file, line);
        if (id < 1 || id > atoms) {
            throw new BadInputException(file, file + ":" + line + ": atom id " + id + " outside 1.." + atoms);
        }
        return id - 1;
    }

    static double number(String tok, Path file, int line) {
        try {
            return Double.parseDouble(tok);
        } catch (NumberFormatException e) {
            throw new BadInputException(file, file + ":" + line + ": expected a number, found '" + tok + "'");
        }
    }
}
