package dev.penstock.atoms.potential;

import dev.penstock.atoms.io.Elements;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/// A LAMMPS potential definition file — the `*.snap` snippets users `include`: `variable NAME
/// equal|index VALUE` lines, `pair_style snap` or `pair_style hybrid/overlay zbl INNER OUTER
/// snap` (lines joined at `&`, `${NAME}` and `$N` substituted), and their `pair_coeff` lines —
/// read whole into the model it defines: SNAP, or ZBL summed with SNAP (`ModelSum`). The SNAP
/// files it names are found beside it. ZBL's charges must be the elements' atomic numbers (they
/// are in every shipped file): another is refused, naming the line.
public final class LammpsPairFile {
    private LammpsPairFile() {
    }

    /// A factory of the model `file` defines (each call a model of its own); the files are read
    /// now, so a bad one fails here, naming it and the line.
    public static Supplier<Model> read(Path file) throws IOException {
        List<String> raw = PotentialFiles.lines(file, "LAMMPS");
        List<String> lines = new ArrayList<>();
        List<Integer> numbers = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        int first = -1;
        for (int ln = 0; ln < raw.size(); ln++) {
            String t = raw.get(ln);
            int hash = t.indexOf('#');
            t = (hash < 0 ? t : t.substring(0, hash)).strip();
            if (first < 0) {
                first = ln + 1;
            }
            if (t.endsWith("&")) {
                pending.append(t, 0, t.length() - 1).append(' ');
                continue;
            }
            pending.append(t);
            if (!pending.toString().isBlank()) {
                lines.add(pending.toString().strip());
                numbers.add(first);
            }
            pending.setLength(0);
            first = -1;
        }
        Map<String, String> variables = new HashMap<>();
        List<String> styles = null;
        double inner = Double.NaN;
        double outer = Double.NaN;
        FileModel snap = null;
        Path dir = file.toAbsolutePath().getParent();
        String[] mliap = null; // model KIND FILE descriptor sna FILE
        String[] elements = null;
        List<int[]> zbl = new ArrayList<>(); // {line, type i, type j, zi, zj}
        for (int k = 0; k < lines.size(); k++) {
            int ln = numbers.get(k);
            String[] w = substitute(lines.get(k), variables, file, ln).split("\\s+");
            switch (w[0]) {
                case "variable" -> {
                    if (w.length != 4 || !(w[2].equals("equal") || w[2].equals("index"))) {
                        throw refused(file, ln, "expected 'variable NAME equal|index VALUE'");
                    }
                    variables.put(w[1], w[3]);
                }
                case "pair_style" -> {
                    styles = new ArrayList<>();
                    if (w.length == 2 && w[1].equals("snap")) {
                        styles.add("snap");
                    } else if (w.length == 8 && w[1].equals("mliap")) {
                        styles.add("mliap");
                        mliap = java.util.Arrays.copyOfRange(w, 2, 8);
                    } else if (w.length >= 2 && w[1].equals("hybrid/overlay")) {
                        for (int q = 2; q < w.length; q++) {
                            switch (w[q]) {
                                case "zbl" -> {
                                    if (q + 2 >= w.length) {
                                        throw refused(file, ln, "zbl needs its inner and outer cutoffs");
                                    }
                                    inner = number(w[q + 1], file, ln);
                                    outer = number(w[q + 2], file, ln);
                                    styles.add("zbl");
                                    q += 2;
                                }
                                case "snap" -> styles.add("snap");
                                case "mliap" -> {
                                    if (q + 6 >= w.length) {
                                        throw refused(file, ln, "mliap needs 'model KIND FILE descriptor sna FILE'");
                                    }
                                    mliap = java.util.Arrays.copyOfRange(w, q + 1, q + 7);
                                    styles.add("mliap");
                                    q += 6;
                                }
                                default -> throw refused(file, ln, "pair style '" + w[q] + "' is not one Penstock runs (zbl and snap are)");
                            }
                        }
                    } else {
                        throw refused(file, ln, "pair style '" + String.join(" ", java.util.Arrays.copyOfRange(w, 1, w.length))
                                + "' is not one Penstock reads here (snap, mliap, or hybrid/overlay of zbl and one of them)");
                    }
                }
                case "pair_coeff" -> {
                    if (styles == null) {
                        throw refused(file, ln, "pair_coeff before pair_style");
                    }
                    boolean hybrid = styles.size() > 1;
                    int at = hybrid ? 4 : 3; // pair_coeff I J [style] args…
                    String style = hybrid ? (w.length > 3 ? w[3] : "") : styles.getFirst();
                    if (style.equals("snap")) {
                        if (!w[1].equals("*") || !w[2].equals("*") || w.length < at + 3) {
                            throw refused(file, ln, "expected 'pair_coeff * * [snap] COEFF PARAM ELEMENTS…'");
                        }
                        snap = Snap.read(dir.resolve(w[at]), dir.resolve(w[at + 1]));
                        elements = java.util.Arrays.copyOfRange(w, at + 2, w.length);
                    } else if (style.equals("mliap")) {
                        if (!w[1].equals("*") || !w[2].equals("*") || w.length < at + 1) {
                            throw refused(file, ln, "expected 'pair_coeff * * [mliap] ELEMENTS…'");
                        }
                        if (!mliap[0].equals("model") || !mliap[3].equals("descriptor") || !mliap[4].equals("sna")) {
                            throw refused(file, ln, "mliap needs 'model KIND FILE descriptor sna FILE' (the SNAP descriptor)");
                        }
                        snap = Mliap.read(mliap[1], dir.resolve(mliap[2]), dir.resolve(mliap[5]));
                        elements = java.util.Arrays.copyOfRange(w, at, w.length);
                    } else if (style.equals("zbl")) {
                        if (w.length != 6) {
                            throw refused(file, ln, "expected 'pair_coeff I J zbl Zi Zj'");
                        }
                        zbl.add(new int[] {ln, (int) number(w[1], file, ln), (int) number(w[2], file, ln), (int) number(w[4], file, ln),
                                (int) number(w[5], file, ln)});
                    } else {
                        throw refused(file, ln, "pair_coeff for '" + style + "', which the pair_style does not name");
                    }
                }
                default -> throw refused(file, ln, "'" + w[0] + "' is not a line of a potential definition (variable, pair_style, pair_coeff)");
            }
        }
        if (snap == null) {
            throw new IllegalArgumentException(file + ": no 'pair_coeff * * …' line for snap or mliap: nothing to run");
        }
        for (int[] z : zbl) {
            for (int q = 1; q <= 2; q++) {
                int type = z[q];
                if (type < 1 || type > elements.length || Elements.number(elements[type - 1]) != z[q + 2]) {
                    throw refused(file, z[0], "ZBL's charge " + z[q + 2] + " for type " + type + " is not the atomic number of its element"
                            + (type >= 1 && type <= elements.length ? " (" + elements[type - 1] + ")" : ""));
                }
            }
        }
        FileModel model = snap;
        Supplier<Model> fresh = () -> model instanceof Snap sn ? sn.fresh() : ((Mliap) model).fresh();
        if (styles.contains("zbl")) {
            double in = inner;
            double out = outer;
            new Zbl(in, out); // validates now
            return () -> new ModelSum(List.of(new Zbl(in, out), fresh.get()));
        }
        return fresh;
    }

    private static String substitute(String line, Map<String, String> variables, Path file, int ln) {
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < line.length(); k++) {
            char c = line.charAt(k);
            if (c != '$' || k + 1 >= line.length()) {
                out.append(c);
                continue;
            }
            String name;
            if (line.charAt(k + 1) == '{') {
                int end = line.indexOf('}', k);
                if (end < 0) {
                    throw refused(file, ln, "unclosed '${'");
                }
                name = line.substring(k + 2, end);
                k = end;
            } else {
                name = String.valueOf(line.charAt(k + 1));
                k++;
            }
            String v = variables.get(name);
            if (v == null) {
                throw refused(file, ln, "variable '" + name + "' is not defined");
            }
            out.append(v);
        }
        return out.toString();
    }

    private static double number(String s, Path file, int ln) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw refused(file, ln, "'" + s + "' is not a number");
        }
    }

    private static IllegalArgumentException refused(Path file, int line, String why) {
        return new IllegalArgumentException(file + ", line " + line + ": " + why);
    }
}
