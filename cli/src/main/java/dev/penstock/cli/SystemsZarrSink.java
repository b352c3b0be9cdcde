package dev.penstock.cli;

import dev.penstock.atoms.stage.SystemCodec;
import dev.penstock.atoms.system.AtomArray;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.formats.zarr.ZarrFormat;
import dev.penstock.formats.zarr.ZarrGroup;
import dev.penstock.formats.zarr.ZarrWriter;
import dev.penstock.io.PendingOutput;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.stage.SampleRefusedException;
import dev.penstock.stage.Sink;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;

/// A result sink writing finished systems to a Zarr group (v2 or v3) holding every field the
/// extended XYZ output holds, in ASE's units, ragged by atom offsets:
///
/// ```
///   OUT.zarr/  attrs: format "penstock-systems", layout_version 2, order, units {…}
///     positions [atoms, 3] f8 Å      momenta [atoms, 3] f8 amu·Å/t (ASE's: t = Å·√(amu/eV))
///     forces [atoms, 3] f8 eV/Å      masses [atoms, 1] f8 amu      numbers [atoms, 1] i4
///     id [systems, 1] i8   energy [systems, 1] f8 eV (NaN: none)   stress [systems, 9] f8 eV/Å³
///     atom_start [systems, 1] i8   atom_count [systems, 1] i8   cell [systems, 9] f8 Å   pbc [systems, 3] u1
///     info/<key> [systems, 1] string  each info key of any system ("" where a system lacks it):
///                                     the stage history `stages`, the input's own keys
///     arrays/<name> [atoms, w]        each per-atom array of the input (tags, charges, …):
///                                     R f8, I i8, L u1 (attribute kind "bool"), S string
/// ```
///
/// System k's atoms are rows `atom_start[k] … +atom_count[k]` of the per-atom arrays. `stress`
/// is ASE's (−virial/volume, row-major 3×3), NaN where the XYZ writes none (no virial, or a cell
/// without volume). Systems are in input order (`rank`, the default) or as they finished (no
/// rank): each finished system is encoded once (`SystemCodec`) into a spool beside `OUT`, and
/// `commit()` writes the group from it in rank order, so memory holds two numbers per system and
/// the info keys and array names seen. The group is written beside `OUT` and swapped in by
/// `commit()`, which the pipeline calls once the run has succeeded; closed without it, `OUT` is
/// as it was. A system whose per-atom array disagrees with an earlier system's (same name, other
/// type or width) is refused alone (`SampleRefusedException`: quarantined, kept with its reason).
final class SystemsZarrSink implements Sink<AtomicSystem> {
    private static final int ATOM_CHUNK = 65536;
    private static final int SYSTEM_CHUNK = 4096;

    private final Path dir;
    private final ZarrFormat format;
    private final ToLongFunction<AtomicSystem> rank;
    private final PendingOutput spool;
    private final FileChannel out;
    private final SystemCodec codec = new SystemCodec();
    private final Set<String> infoKeys = new LinkedHashSet<>();
    private final Map<String, AtomArray> arrayShapes = new LinkedHashMap<>(); // name -> the first system's (kind and width)
    private long[] ranks = new long[64];
    private long[] ends = new long[64];
    private long spooled;
    private int held;
    private boolean closed;

    /// A sink putting a group of `format` at `dir` on `commit()`, systems in `rank` order (null:
    /// as they finish).
    SystemsZarrSink(Path dir, ZarrFormat format, ToLongFunction<AtomicSystem> rank) throws IOException {
        this.dir = dir;
        this.format = format;
        this.rank = rank;
        PendingOutput.refuseForeign(dir, ZarrWriter::isZarrEntry); // a foreign directory refused now, not at the end
        this.spool = PendingOutput.file(dir.resolveSibling(dir.getFileName() + ".spool"));
        try {
            this.out = FileChannel.open(spool.path(), java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE,
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            spool.close();
            throw e;
        }
    }

    @Override
    public synchronized boolean offer(AtomicSystem s) throws IOException, SampleRefusedException {
        for (Map.Entry<String, AtomArray> e : s.arrays().entrySet()) {
            AtomArray first = arrayShapes.get(e.getKey());
            AtomArray a = e.getValue();
            if (first != null && (first.kind() != a.kind() || first.width() != a.width())) {
                throw new SampleRefusedException(dir + ": system " + s.id() + "'s per-atom array '" + e.getKey() + "' is " + a.kind().letter()
                        + " × " + a.width() + ", an earlier system's was " + first.kind().letter() + " × " + first.width());
            }
        }
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(64 + 100 * s.atoms());
        codec.write(s, new DataOutputStream(bytes));
        ByteBuffer b = ByteBuffer.wrap(bytes.toByteArray());
        while (b.hasRemaining()) {
            out.write(b);
        }
        s.arrays().forEach(arrayShapes::putIfAbsent);
        infoKeys.addAll(s.info().keySet());
        if (held == ranks.length) {
            ranks = Arrays.copyOf(ranks, 2 * held);
            ends = Arrays.copyOf(ends, 2 * held);
        }
        spooled += bytes.size();
        ranks[held] = rank == null ? held : rank.applyAsLong(s);
        ends[held] = spooled;
        held++;
        return true;
    }

    @Override
    public String name() {
        return dir.toString();
    }

    @Override
    public synchronized long held() {
        return held;
    }

    /// Writes the group from the spool in rank order and swaps it in at the destination (the
    /// pipeline calls it when a run succeeds).
    @Override
    public synchronized void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException(dir + ": sink already closed");
        }
        closed = true;
        try (spool; out; ZarrGroup g = ZarrGroup.create(dir, format, attributes())) {
            Columns c = new Columns(g);
            Integer[] order = new Integer[held];
            for (int k = 0; k < held; k++) {
                order[k] = k;
            }
            Arrays.sort(order, java.util.Comparator.comparingLong(k -> ranks[k])); // stable: equal ranks keep arrival order
            long atoms = 0;
            for (int k : order) {
                long start = k == 0 ? 0 : ends[k - 1];
                ByteBuffer b = ByteBuffer.allocate((int) (ends[k] - start));
                while (b.hasRemaining()) {
                    if (out.read(b, start + b.position()) < 0) {
                        throw new IOException(spool.path() + ": the spool ends early");
                    }
                }
                AtomicSystem s = codec.read(new DataInputStream(new ByteArrayInputStream(b.array())));
                c.append(s, atoms);
                atoms += s.atoms();
            }
            g.commit();
        }
    }

    private Map<String, Object> attributes() {
        Map<String, Object> units = new LinkedHashMap<>();
        units.put("positions", "Å");
        units.put("momenta", "amu·Å/t, t = Å·√(amu/eV) ≈ 10.1805 fs (ASE's)");
        units.put("forces", "eV/Å");
        units.put("masses", "amu");
        units.put("energy", "eV");
        units.put("stress", "eV/Å³");
        units.put("cell", "Å");
        return Map.of("format", "penstock-systems", "layout_version", 2, "order", rank == null ? "completion" : "input", "systems", held,
                "units", units);
    }

    /// The group's arrays, filled one system at a time.
    private final class Columns {
        private final ZarrWriter positions;
        private final ZarrWriter momenta;
        private final ZarrWriter forces;
        private final ZarrWriter masses;
        private final ZarrWriter numbers;
        private final ZarrWriter ids;
        private final ZarrWriter energy;
        private final ZarrWriter stress;
        private final ZarrWriter atomStart;
        private final ZarrWriter atomCount;
        private final ZarrWriter cell;
        private final ZarrWriter pbc;
        private final Map<String, ZarrWriter> info = new LinkedHashMap<>();
        private final Map<String, ZarrWriter> arrays = new LinkedHashMap<>();

        Columns(ZarrGroup g) throws IOException {
            Map<String, Object> none = Map.of();
            positions = g.array("positions", DType.F64, 3, ATOM_CHUNK, 1, Map.of("units", "Å"));
            momenta = g.array("momenta", DType.F64, 3, ATOM_CHUNK, 1, Map.of("units", "amu·Å/t, t = Å·√(amu/eV) (ASE's)"));
            forces = g.array("forces", DType.F64, 3, ATOM_CHUNK, 1, Map.of("units", "eV/Å"));
            masses = g.array("masses", DType.F64, 1, ATOM_CHUNK, 1, Map.of("units", "amu"));
            numbers = g.array("numbers", DType.I32, 1, ATOM_CHUNK, 1, none);
            ids = g.array("id", DType.I64, 1, SYSTEM_CHUNK, 1, none);
            energy = g.array("energy", DType.F64, 1, SYSTEM_CHUNK, 1, Map.of("units", "eV"));
            stress = g.array("stress", DType.F64, 9, SYSTEM_CHUNK, 1, Map.of("units", "eV/Å³", "meaning",
                    "ASE's stress, -virial/volume, 3x3 row-major; NaN where none was computed"));
            atomStart = g.array("atom_start", DType.I64, 1, SYSTEM_CHUNK, 1, none);
            atomCount = g.array("atom_count", DType.I64, 1, SYSTEM_CHUNK, 1, none);
            cell = g.array("cell", DType.F64, 9, SYSTEM_CHUNK, 1, Map.of("units", "Å"));
            pbc = g.array("pbc", DType.U8, 3, SYSTEM_CHUNK, 1, none);
            g.group("info", Map.of("meaning", "each system's info, one string per system (\"\" where a system lacks the key)"));
            for (String key : infoKeys) {
                info.put(key, g.strings("info/" + key, SYSTEM_CHUNK, 1, none));
            }
            g.group("arrays", Map.of("meaning", "the input's own per-atom arrays, rows as positions"));
            for (Map.Entry<String, AtomArray> e : arrayShapes.entrySet()) {
                AtomArray a = e.getValue();
                String name = "arrays/" + e.getKey();
                arrays.put(e.getKey(), switch (a.kind()) {
                    case REAL -> g.array(name, DType.F64, a.width(), ATOM_CHUNK, 1, Map.of("kind", "real"));
                    case INT -> g.array(name, DType.I64, a.width(), ATOM_CHUNK, 1, Map.of("kind", "int"));
                    case BOOL -> g.array(name, DType.U8, a.width(), ATOM_CHUNK, 1, Map.of("kind", "bool"));
                    case STRING -> g.strings(name, a.width(), ATOM_CHUNK, 1, Map.of("kind", "string"));
                });
            }
        }

        void append(AtomicSystem s, long atomOffset) throws IOException {
            int n = s.atoms();
            double[] v = s.velocities();
            double[] m = s.masses();
            double[] p = new double[3 * n];
            for (int i = 0; i < 3 * n; i++) {
                p[i] = m[i / 3] * v[i]; // ASE's momenta, as the XYZ writes them
            }
            positions.append(f64(s.positions(), n, 3));
            momenta.append(f64(p, n, 3));
            forces.append(f64(s.forces(), n, 3));
            masses.append(f64(m, n, 1));
            numbers.append(Block.wrap(MemorySegment.ofArray(s.numbers()), DType.I32, null, n, 1));
            ids.append(i64(new long[] {s.id()}, 1, 1));
            energy.append(f64(new double[] {s.energy()}, 1, 1));
            double[] w = s.virial();
            double volume = s.cell().volume();
            double[] st = new double[9];
            for (int k = 0; k < 9; k++) {
                st[k] = w != null && volume > 0 ? -w[k] / volume : Double.NaN;
            }
            stress.append(f64(st, 1, 9));
            atomStart.append(i64(new long[] {atomOffset}, 1, 1));
            atomCount.append(i64(new long[] {n}, 1, 1));
            cell.append(f64(s.cell().vectors(), 1, 9));
            pbc.append(u8(new byte[] {(byte) (s.periodic(0) ? 1 : 0), (byte) (s.periodic(1) ? 1 : 0), (byte) (s.periodic(2) ? 1 : 0)}, 1, 3));
            for (Map.Entry<String, ZarrWriter> e : info.entrySet()) {
                e.getValue().appendStrings(s.info().getOrDefault(e.getKey(), ""));
            }
            for (Map.Entry<String, ZarrWriter> e : arrays.entrySet()) {
                AtomArray shape = arrayShapes.get(e.getKey());
                append(e.getValue(), shape, s.arrays().get(e.getKey()), n);
            }
        }

        /// A system's array `a` (null: the system has none — NaN, 0, false or "" then).
        private static void append(ZarrWriter w, AtomArray shape, AtomArray a, int n) throws IOException {
            int len = n * shape.width();
            switch (shape.kind()) {
                case REAL -> {
                    double[] x = new double[len];
                    for (int k = 0; k < len; k++) {
                        x[k] = a == null ? Double.NaN : a.real(k);
                    }
                    w.append(f64(x, n, shape.width()));
                }
                case INT -> {
                    long[] x = new long[len];
                    for (int k = 0; a != null && k < len; k++) {
                        x[k] = a.integer(k);
                    }
                    w.append(i64(x, n, shape.width()));
                }
                case BOOL -> {
                    byte[] x = new byte[len];
                    for (int k = 0; a != null && k < len; k++) {
                        x[k] = (byte) (a.bool(k) ? 1 : 0);
                    }
                    w.append(u8(x, n, shape.width()));
                }
                case STRING -> {
                    String[] x = new String[len];
                    for (int k = 0; k < len; k++) {
                        x[k] = a == null ? "" : a.text(k);
                    }
                    w.appendStrings(x);
                }
            }
        }
    }

    private static Block f64(double[] a, long rows, long width) {
        return Block.wrap(MemorySegment.ofArray(a), DType.F64, null, rows, width);
    }

    private static Block i64(long[] a, long rows, long width) {
        return Block.wrap(MemorySegment.ofArray(a), DType.I64, null, rows, width);
    }

    private static Block u8(byte[] a, long rows, long width) {
        return Block.wrap(MemorySegment.ofArray(a), DType.U8, null, rows, width);
    }

    /// Closes the sink; unless `commit()` came first nothing is kept and the destination is as
    /// it was.
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (spool) {
            out.close();
        }
    }
}
