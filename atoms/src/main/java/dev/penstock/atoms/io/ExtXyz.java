package dev.penstock.atoms.io;

import dev.penstock.atoms.system.AtomArray;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.io.BadInputException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/// Extended XYZ, as ASE writes and reads it: per frame an atom count, a comment line of
/// `key=value` pairs (`Lattice="ax ay az bx by bz cx cy cz"`, `Properties=species:S:1:pos:R:3:…`,
/// `energy=…`, `pbc="T T F"`), then one line per atom.
///
/// Written: species, pos, masses, momenta (m·v, ASE's convention for velocities), forces, the
/// full lattice (orthorhombic or triclinic), and `stress` (−virial/volume, eV/Å³, 3×3) for a
/// periodic system whose model computed a virial. Read: species (or Z), pos, optional masses
/// (standard atomic masses otherwise, as ASE), momenta (or vel) and forces, the lattice and
/// pbc; a comment line that is not extended XYZ (plain XYZ's free text) becomes info `comment`.
/// Every other per-atom property (R, I, L or S columns: `tags`, charges, labels) is read into
/// the system's `arrays()` and written back after the standard columns.
/// Errors name the file and line.
///
/// Why one file over 400 lines: one format's grammar — the comment line's key=value quoting,
/// the reserved keys, the Properties columns — which the reader and the writer must agree on to
/// the character (ASE reads what this writes, this reads what ASE writes; the fuzz target checks
/// the round trip); split, the two halves would each carry a copy of it.
public final class ExtXyz {
    private ExtXyz() {
    }

    /// Writes `systems` as consecutive frames.
    ///
    /// @throws IllegalArgumentException (writing nothing of that system) for an info key that
    ///                                  extended XYZ cannot hold or a value with a line break
    public static void write(Writer out, List<AtomicSystem> systems) throws IOException {
        write(out, systems, false);
    }

    /// Writes `systems`, renaming info keys extended XYZ cannot hold (`start:` → `start_`) and
    /// flattening line breaks in values: for systems that must be kept whatever their info
    /// (quarantined ones).
    public static void writeLenient(Writer out, List<AtomicSystem> systems) throws IOException {
        write(out, systems, true);
    }

    private static String writableKey(String key) {
        String k = key.replaceAll("[^A-Za-z0-9_-]", "_");
        k = k.isEmpty() || !Character.isLetter(k.charAt(0)) && k.charAt(0) != '_' ? "_" + k : k;
        return RESERVED.contains(k) ? k + "_" : k;
    }

    private static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace('\n', ' ').replace('\r', ' ');
    }

    private static void write(Writer out, List<AtomicSystem> systems, boolean lenient) throws IOException {
        for (AtomicSystem s : systems) {
            int n = s.atoms();
            double[] cell = s.cell().vectors();
            StringBuilder sb = new StringBuilder();
            sb.append(n).append('\n');
            sb.append("Lattice=\"");
            for (int k = 0; k < 9; k++) {
                sb.append(k == 0 ? "" : " ").append(num(cell[k]));
            }
            sb.append("\" ");
            sb.append("Properties=species:S:1:pos:R:3:masses:R:1:momenta:R:3:forces:R:3");
            List<AtomArray> extras = new ArrayList<>(s.arrays().size());
            for (Map.Entry<String, AtomArray> e : s.arrays().entrySet()) {
                String name = e.getKey();
                if (!KEY.matcher(name).matches() || WIDTHS.containsKey(name)) {
                    if (!lenient) {
                        throw new IllegalArgumentException("system " + s.id() + ": per-atom array '" + name
                                + "' cannot be written to extended XYZ (a name of letters, digits, _ and -, not a standard property)");
                    }
                    name = "_" + name.replaceAll("[^A-Za-z0-9_-]", "_");
                }
                AtomArray a = e.getValue();
                if (a.kind() == AtomArray.Kind.STRING && lenient) {
                    String[] kept = new String[a.length()];
                    for (int k = 0; k < kept.length; k++) {
                        kept[k] = a.text(k).isEmpty() ? "_" : a.text(k).replaceAll("\\s", "_");
                    }
                    a = AtomArray.strings(a.width(), kept);
                }
                if (a.kind() == AtomArray.Kind.STRING) {
                    for (int k = 0; k < a.length(); k++) {
                        if (a.text(k).isEmpty() || a.text(k).chars().anyMatch(Character::isWhitespace)) {
                            throw new IllegalArgumentException("system " + s.id() + ": per-atom array '" + name + "' holds '" + a.text(k)
                                    + "', which an extended XYZ column cannot (empty or with white space)");
                        }
                    }
                }
                sb.append(':').append(name).append(':').append(a.kind().letter()).append(':').append(a.width());
                extras.add(a);
            }
            if (!Double.isNaN(s.energy())) {
                sb.append(" energy=").append(num(s.energy()));
            }
            sb.append(" id=").append(s.id());
            double[] w = s.virial();
            double volume = s.cell().volume();
            boolean stress = w != null && volume > 0;
            if (stress) { // ASE's stress: −W/V in eV/Å³, 3×3 row-major (kinetic part aside, as ASE's calculators give it)
                sb.append(" stress=\"");
                for (int k = 0; k < 9; k++) {
                    sb.append(k == 0 ? "" : " ").append(num(-w[k] / volume));
                }
                sb.append('"');
            }
            for (Map.Entry<String, String> e : s.info().entrySet()) {
                String key = e.getKey();
                if (stress && key.equals("stress")) {
                    continue; // the input's stress, superseded by the evaluation's
                }
                if (!KEY.matcher(key).matches() || RESERVED.contains(key)) {
                    if (!lenient) {
                        throw new IllegalArgumentException("system " + s.id() + ": info key '" + key
                                + "' cannot be written to extended XYZ (a name of letters, digits, _ and -, not a reserved key)");
                    }
                    key = writableKey(key);
                }
                if (e.getValue().indexOf('\n') >= 0 || e.getValue().indexOf('\r') >= 0) {
                    if (!lenient) {
                        throw new IllegalArgumentException("system " + s.id() + ": info '" + key + "' holds a line break");
                    }
                }
                sb.append(' ').append(key).append("=\"").append(escape(e.getValue())).append('"');
            }
            sb.append(" pbc=\"").append(tf(s.periodic(0))).append(' ').append(tf(s.periodic(1))).append(' ')
                    .append(tf(s.periodic(2))).append("\"\n");
            double[] r = s.positions();
            double[] v = s.velocities();
            double[] f = s.forces();
            double[] m = s.masses();
            for (int i = 0; i < n; i++) {
                sb.append(Elements.symbol(s.numbers()[i]));
                for (int c = 0; c < 3; c++) {
                    sb.append(' ').append(num(r[3 * i + c]));
                }
                sb.append(' ').append(num(m[i]));
                for (int c = 0; c < 3; c++) {
                    sb.append(' ').append(num(m[i] * v[3 * i + c]));
                }
                for (int c = 0; c < 3; c++) {
                    sb.append(' ').append(num(f[3 * i + c]));
                }
                for (AtomArray a : extras) {
                    for (int c = 0; c < a.width(); c++) {
                        sb.append(' ').append(a.text(i * a.width() + c));
                    }
                }
                sb.append('\n');
            }
            out.write(sb.toString());
        }
    }

    private static final java.util.Set<String> RESERVED = java.util.Set.of("Lattice", "Properties", "pbc", "energy", "id");

    private static String num(double x) {
        return Double.toString(x); // shortest repr that round-trips exactly
    }

    private static char tf(boolean b) {
        return b ? 'T' : 'F';
    }

    /// Reads every frame of `in` (named `file` in errors). A frame's id is its `id=` key; a frame
    /// without one gets its index in the file (0, 1, …), unless a frame with `id=` already claims
    /// that number — then the next number no frame claims, after the largest — so an id Penstock
    /// makes up never collides with one the file gives (only two equal `id=` keys can).
    public static List<AtomicSystem> read(BufferedReader in, Path file) throws IOException {
        List<AtomicSystem> out = new ArrayList<>();
        java.util.BitSet given = new java.util.BitSet();
        int line = 0;
        String countLine;
        while ((countLine = in.readLine()) != null) {
            line++;
            if (countLine.isBlank()) {
                continue;
            }
            int n;
            try {
                n = Integer.parseInt(countLine.trim());
            } catch (NumberFormatException e) {
                throw error(file, line, "expected the atom count of a frame, found '" + countLine.trim() + "'");
            }
            String comment = in.readLine();
            line++;
            if (comment == null) {
                throw error(file, line, "expected the comment line of a frame of " + n + " atoms, the file ends");
            }
            if (n < 0) {
                throw error(file, line - 1, "expected an atom count ≥ 0, found " + n);
            }
            if (pairs(comment) == null && EXTENDED.matcher(comment).find()) {
                throw error(file, line, "a malformed extended XYZ comment line (an unterminated quote, or a key that is not a "
                        + "name): " + (comment.length() > 80 ? comment.substring(0, 80) + "…" : comment));
            }
            Map<String, String> kv = keyValues(comment);
            List<String[]> props = properties(kv.getOrDefault("Properties", "species:S:1:pos:R:3"), file, line);
            int width = props.stream().mapToInt(p -> Integer.parseInt(p[2])).sum();
            // the atom lines first: memory follows what the file holds, not what its count claims
            List<String> atomLines = new ArrayList<>(Math.min(n, 1 << 16));
            for (int i = 0; i < n; i++) {
                String atomLine = in.readLine();
                if (atomLine == null) {
                    throw error(file, line + i + 1, "expected atom " + (i + 1) + " of " + n + ", the file ends (wrong atom count?)");
                }
                atomLines.add(atomLine);
            }
            double[] r = new double[3 * n];
            Map<String, Object[]> extras = new LinkedHashMap<>();
            double[] m = null;
            double[] mom = null;
            double[] vel = null;
            double[] forces = null;
            int[] z = new int[n];
            for (int i = 0; i < n; i++) {
                String atomLine = atomLines.get(i);
                line++;
                String[] tok = atomLine.trim().split("\\s+");
                if (tok.length < width) {
                    throw error(file, line, "expected " + width + " columns (" + kv.getOrDefault("Properties", "species, pos") + "), found "
                            + tok.length);
                }
                int col = 0;
                for (String[] p : props) {
                    int k = Integer.parseInt(p[2]);
                    switch (p[0]) {
                        case "species" -> {
                            z[i] = Elements.number(tok[col]);
                            if (z[i] < 0) {
                                throw error(file, line, "unknown element '" + tok[col] + "'");
                            }
                        }
                        case "Z" -> {
                            double zi = parse(tok[col], file, line, "Z");
                            if (zi != Math.rint(zi) || zi < 1 || zi > Elements.LAST) {
                                throw error(file, line, "Z=" + tok[col] + " is not an atomic number (1-" + Elements.LAST + ")");
                            }
                            z[i] = (int) zi;
                        }
                        case "pos" -> {
                            for (int c = 0; c < 3; c++) {
                                r[3 * i + c] = parse(tok[col + c], file, line, "pos");
                            }
                        }
                        case "masses" -> {
                            m = m == null ? new double[n] : m;
                            m[i] = parse(tok[col], file, line, "masses");
                        }
                        case "momenta" -> {
                            mom = mom == null ? new double[3 * n] : mom;
                            for (int c = 0; c < 3; c++) {
                                mom[3 * i + c] = parse(tok[col + c], file, line, "momenta");
                            }
                        }
                        case "vel", "velo", "velocities" -> {
                            vel = vel == null ? new double[3 * n] : vel;
                            for (int c = 0; c < 3; c++) {
                                vel[3 * i + c] = parse(tok[col + c], file, line, p[0]);
                            }
                        }
                        case "forces" -> {
                            forces = forces == null ? new double[3 * n] : forces;
                            for (int c = 0; c < 3; c++) {
                                forces[3 * i + c] = parse(tok[col + c], file, line, "forces");
                            }
                        }
                        default -> { // other per-atom properties (tags, charges, …): carried through as they came
                            Object[] values = extras.computeIfAbsent(p[0], name -> new Object[n * k]);
                            AtomArray.Kind kind = AtomArray.Kind.of(p[1].charAt(0));
                            for (int c = 0; c < k; c++) {
                                try {
                                    values[i * k + c] = AtomArray.parse(kind, tok[col + c]);
                                } catch (IllegalArgumentException e) {
                                    throw error(file, line, "per-atom property '" + p[0] + "' (" + p[1] + "): "
                                            + (e instanceof NumberFormatException ? "expected " + (kind == AtomArray.Kind.INT ? "an integer" : "a number")
                                            + ", found '" + tok[col + c] + "'" : e.getMessage()));
                                }
                            }
                        }
                    }
                    col += k;
                }
            }
            double[] vectors = new double[9];
            boolean[] pbc = new boolean[3];
            if (kv.containsKey("Lattice")) {
                String[] lat = kv.get("Lattice").trim().split("\\s+");
                if (lat.length != 9) {
                    throw error(file, line - n, "expected 9 numbers in Lattice=, found " + lat.length);
                }
                for (int k = 0; k < 9; k++) {
                    vectors[k] = parse(lat[k], file, line - n, "Lattice");
                }
                String p = kv.getOrDefault("pbc", "T T T").trim();
                String[] pt = p.split("\\s+");
                for (int d = 0; d < 3 && d < pt.length; d++) {
                    pbc[d] = pt[d].equalsIgnoreCase("T") || pt[d].equalsIgnoreCase("True");
                }
            }
            if (m == null) {
                m = new double[n];
                for (int i = 0; i < n; i++) {
                    m[i] = Elements.mass(z[i]); // as ASE: standard masses unless given
                }
            }
            long id = out.size();
            if (kv.containsKey("id")) {
                try {
                    id = Long.parseLong(kv.get("id").trim());
                } catch (NumberFormatException e) {
                    throw error(file, line - n, "id= is not an integer: '" + kv.get("id") + "'");
                }
                given.set(out.size());
            }
            Cell cell;
            try {
                cell = Cell.of(vectors, pbc);
            } catch (IllegalArgumentException e) {
                throw error(file, line - n, "bad cell: " + e.getMessage());
            }
            AtomicSystem s;
            try {
                s = new AtomicSystem(id, r, m, z, cell);
            } catch (IllegalArgumentException e) {
                throw error(file, line - n, e.getMessage());
            }
            for (Map.Entry<String, String> e : kv.entrySet()) {
                if (!RESERVED.contains(e.getKey())) {
                    s.info().put(e.getKey(), e.getValue());
                }
            }
            if (mom != null) {
                for (int i = 0; i < 3 * n; i++) {
                    s.velocities()[i] = mom[i] / m[i / 3];
                }
            } else if (vel != null) {
                System.arraycopy(vel, 0, s.velocities(), 0, 3 * n);
            }
            if (forces != null) {
                System.arraycopy(forces, 0, s.forces(), 0, 3 * n);
            }
            for (String[] p : props) {
                Object[] values = extras.get(p[0]);
                if (!WIDTHS.containsKey(p[0])) {
                    s.array(p[0], AtomArray.of(AtomArray.Kind.of(p[1].charAt(0)), Integer.parseInt(p[2]), values == null ? new Object[0] : values));
                }
            }
            if (kv.containsKey("energy")) {
                s.energy(parse(kv.get("energy"), file, line - n, "energy"));
            }
            out.add(s);
        }
        return given.isEmpty() ? out : withoutMadeUpCollisions(out, given);
    }

    /// `frames` with each frame not in `given` whose index-id another frame's `id=` claims (or
    /// an earlier made-up id took) renumbered past every claimed id.
    private static List<AtomicSystem> withoutMadeUpCollisions(List<AtomicSystem> frames, java.util.BitSet given) {
        java.util.Set<Long> taken = new java.util.HashSet<>();
        long next = Long.MIN_VALUE;
        for (int k = given.nextSetBit(0); k >= 0; k = given.nextSetBit(k + 1)) {
            taken.add(frames.get(k).id());
            next = Math.max(next, frames.get(k).id());
        }
        next = Math.max(next, frames.size() - 1L) + 1;
        List<AtomicSystem> out = new ArrayList<>(frames.size());
        for (int k = 0; k < frames.size(); k++) {
            AtomicSystem s = frames.get(k);
            if (!given.get(k) && !taken.add(s.id())) {
                s = s.withId(next++);
                taken.add(s.id());
            }
            out.add(s);
        }
        return out;
    }

    private static double parse(String tok, Path file, int line, String what) {
        try {
            return Double.parseDouble(tok);
        } catch (NumberFormatException e) {
            throw error(file, line, "expected a number for " + what + ", found '" + tok + "'");
        }
    }

    private static final Map<String, Integer> WIDTHS = Map.of("species", 1, "Z", 1, "masses", 1, "pos", 3, "momenta", 3,
            "vel", 3, "velo", 3, "velocities", 3, "forces", 3);

    private static List<String[]> properties(String spec, Path file, int line) {
        String[] t = spec.split(":");
        if (t.length % 3 != 0) {
            throw error(file, line, "malformed Properties='" + spec + "': expected name:type:count triples");
        }
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < t.length; i += 3) {
            int count;
            try {
                count = Integer.parseInt(t[i + 2]);
            } catch (NumberFormatException e) {
                count = -1;
            }
            Integer needed = WIDTHS.get(t[i]);
            if (count < 1 || count > 1024 || needed != null && count != needed) {
                throw error(file, line, "Properties='" + spec + "': '" + t[i] + "' has " + t[i + 2] + " columns, expected "
                        + (needed != null ? needed : "a count from 1 to 1024"));
            }
            if (t[i + 1].length() != 1 || AtomArray.Kind.of(t[i + 1].charAt(0)) == null) {
                throw error(file, line, "Properties='" + spec + "': '" + t[i] + "' has type '" + t[i + 1] + "', expected R, I, L or S");
            }
            for (String[] seen : out) {
                if (seen[0].equals(t[i])) {
                    throw error(file, line, "Properties='" + spec + "': '" + t[i] + "' appears twice");
                }
            }
            out.add(new String[] {t[i], t[i + 1], t[i + 2]});
        }
        return out;
    }

    /// The info of a comment line: its `key=value` pairs (values may be "quoted", with `\"` and
    /// `\\` escapes) when it is an extended XYZ comment; otherwise (plain XYZ: free text such as
    /// "LJ38 start: relaxed minimum") the whole line, stripped, as info `comment`, as ASE reads it.
    static Map<String, String> keyValues(String comment) {
        Map<String, String> kv = pairs(comment);
        if (kv != null) {
            return kv;
        }
        Map<String, String> plain = new LinkedHashMap<>();
        plain.put("comment", comment.strip());
        return plain;
    }

    /// The pairs of an extended XYZ comment, or null when the line is not one (a key that is not
    /// a name, an unterminated quote, or bare words without any `Properties=`/`Lattice=`).
    private static Map<String, String> pairs(String comment) {
        Map<String, String> kv = new LinkedHashMap<>();
        boolean bare = false;
        int i = 0;
        int n = comment.length();
        while (true) {
            while (i < n && Character.isWhitespace(comment.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int k0 = i;
            while (i < n && comment.charAt(i) != '=' && !Character.isWhitespace(comment.charAt(i))) {
                i++;
            }
            String key = comment.substring(k0, i);
            if (!KEY.matcher(key).matches()) {
                return null;
            }
            if (i < n && comment.charAt(i) == '=') {
                i++;
                StringBuilder value = new StringBuilder();
                if (i < n && (comment.charAt(i) == '"' || comment.charAt(i) == '\'')) {
                    char q = comment.charAt(i++);
                    while (i < n && comment.charAt(i) != q) {
                        char c = comment.charAt(i++);
                        if (c == '\\' && i < n) {
                            c = comment.charAt(i++);
                        }
                        value.append(c);
                    }
                    if (i >= n) {
                        return null; // unterminated quote
                    }
                    i++;
                } else {
                    while (i < n && !Character.isWhitespace(comment.charAt(i))) {
                        value.append(comment.charAt(i++));
                    }
                }
                kv.put(key, value.toString());
            } else {
                bare = true;
                kv.put(key, "T");
            }
        }
        if (bare && !kv.containsKey("Properties") && !kv.containsKey("Lattice")) {
            return null;
        }
        return kv;
    }

    private static final java.util.regex.Pattern EXTENDED = java.util.regex.Pattern.compile("(^|\\s)(Lattice|Properties)=");
    private static final java.util.regex.Pattern KEY = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_\\-]*");

    private static BadInputException error(Path file, int line, String what) {
        return new BadInputException(file, file + ":" + line + ": " + what);
    }
}
