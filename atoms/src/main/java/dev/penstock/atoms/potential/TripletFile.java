package dev.penstock.atoms.potential;

import dev.penstock.atoms.io.Elements;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// A LAMMPS three-body parameter file (`*.sw`, `*.tersoff`): entries of three element symbols and
/// a fixed count of numbers, free format (`#` comments; an entry may span lines). Every triplet
/// of the elements named must have exactly one entry; a bad one fails naming the file and line.
///
/// @param elements the elements, in order of first appearance
/// @param values   each entry's numbers, in file order
/// @param index    entry of triplet (i, j, k) at `(i · n + j) · n + k`
/// @param lines    the line each entry starts on
record TripletFile(String[] elements, List<double[]> values, int[] index, List<Integer> lines) {
    /// Reads `file`, a `kind` file of entries with `numbers` numbers each, `meaning` naming them.
    static TripletFile read(Path file, String kind, int numbers, String meaning) throws IOException {
        List<String> text = PotentialFiles.lines(file, kind);
        List<String> tokens = new ArrayList<>();
        List<Integer> lineOf = new ArrayList<>();
        for (int n = 0; n < text.size(); n++) {
            String t = text.get(n);
            int hash = t.indexOf('#');
            t = (hash >= 0 ? t.substring(0, hash) : t).strip();
            if (!t.isEmpty()) {
                for (String w : t.split("\\s+")) {
                    tokens.add(w);
                    lineOf.add(n + 1);
                }
            }
        }
        int per = 3 + numbers;
        if (tokens.isEmpty()) {
            throw new IllegalArgumentException(file + ": no " + kind + " entries");
        }
        if (tokens.size() % per != 0) {
            throw new IllegalArgumentException(file + " line " + lineOf.getLast() + ": the last entry is incomplete (an entry is 3 elements "
                    + "and " + numbers + " numbers: " + meaning + ")");
        }
        List<String> names = new ArrayList<>();
        List<String[]> triplets = new ArrayList<>();
        List<double[]> values = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        for (int e = 0; e < tokens.size(); e += per) {
            String[] el = {tokens.get(e), tokens.get(e + 1), tokens.get(e + 2)};
            for (String name : el) {
                if (Elements.number(name) < 1) {
                    throw new IllegalArgumentException(file + " line " + lineOf.get(e) + ": '" + name + "' is not an element symbol");
                }
                if (!names.contains(name)) {
                    names.add(name);
                }
            }
            double[] v = new double[numbers];
            for (int k = 0; k < numbers; k++) {
                String w = tokens.get(e + 3 + k);
                try {
                    v[k] = Double.parseDouble(w);
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException(file + " line " + lineOf.get(e + 3 + k) + ": '" + w + "' is not a number (entry "
                            + String.join(" ", el) + ")");
                }
            }
            triplets.add(el);
            values.add(v);
            starts.add(lineOf.get(e));
        }
        int n = names.size();
        int[] index = new int[n * n * n];
        Arrays.fill(index, -1);
        for (int m = 0; m < triplets.size(); m++) {
            int at = (names.indexOf(triplets.get(m)[0]) * n + names.indexOf(triplets.get(m)[1])) * n + names.indexOf(triplets.get(m)[2]);
            if (index[at] >= 0) {
                throw new IllegalArgumentException(file + ": two entries for " + String.join(" ", triplets.get(m)));
            }
            index[at] = m;
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < n; k++) {
                    if (index[(i * n + j) * n + k] < 0) {
                        throw new IllegalArgumentException(file + ": no entry for " + names.get(i) + " " + names.get(j) + " " + names.get(k));
                    }
                }
            }
        }
        return new TripletFile(names.toArray(String[]::new), values, index, starts);
    }

    /// The entry that starts `entry`'s text, as "FILE line N: entry A B C" for messages.
    String where(Path file, int entry) {
        int n = elements.length;
        for (int at = 0; at < index.length; at++) {
            if (index[at] == entry) {
                return file + " line " + lines.get(entry) + ": entry " + elements[at / (n * n)] + " " + elements[at / n % n] + " "
                        + elements[at % n];
            }
        }
        return file + " line " + lines.get(entry);
    }
}
