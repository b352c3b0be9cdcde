package dev.penstock.cuda;

import dev.penstock.atoms.device.ModelTerms;
import dev.penstock.atoms.device.RelaxColumns;
import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/// The full neighbour lists of a packed batch on a CUDA device, for the kernels that gather per
/// atom over them (`CudaEam`, `CudaSnap`): each system's half list by id (rebuilt when an atom
/// moved half the skin), turned into full rows sorted by partner and image, assembled into the
/// batch's CSR (atom rows `[0, atoms)`: `type`, `start`, `nbr`, `shift` and, where asked, `rev`:
/// the entry of i in j's row with the opposite image) and uploaded when a list was rebuilt, its
/// cell changed (a barostat's, a cell relaxation's: the views follow the `CELL` columns, each
/// entry's image shift is remade for the new cell, `NeighborList.update`'s rule deciding when the
/// strain asks for a rebuild instead) or the rows moved.
///
/// Each atom's entries are sorted, and an entry beyond a model's cutoff adds nothing, so a
/// system's numbers depend on its positions alone: not on when its list was built (nor on a
/// checkpoint restore), nor on its batch neighbours.
///
/// Threading: the stage's thread (the kernels' caller) alone.
final class BatchLists implements AutoCloseable {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;

    private final CudaDevice device;
    private final String name;
    private final double cutoff;
    private final double skin;
    private final int[] numbers;
    private final Object model;
    private final boolean reverse;
    private final HostArena host;
    private final Map<Long, SystemList> lists = new HashMap<>();
    private long evaluations;

    // the batch's CSR as last uploaded: each row's id and first atom row (what a reupload checks)
    private long[] rowIds = new long[0];
    private int[] rowStarts = new int[0];
    private int uploadedSystems = -1;
    private BlockArena listArena;
    private HostArena listHost;
    private Block hostStart;
    private Block hostType;
    private Block hostNbr;
    private Block hostShift;
    private Block hostRev;
    private long atomCapacity = -1;
    private long entryCapacity = -1;
    private Block type;
    private Block start;
    private Block nbr;
    private Block shift;
    private Block rev;
    private Block hostPos;
    private Block hostInts;
    private Block hostDoubles;
    private int[] csrStart = new int[1];
    private int[] csrNbr = new int[0];
    private int[] csrRev = new int[0];
    private double[] csrShift = new double[0];
    private int[] csrType = new int[0];
    private int entries;

    /// Lists of `cutoff` (skin a tenth of it) for a model of elements `numbers` (`model` names it
    /// in refusals), with reverse entries if `reverse`.
    BatchLists(CudaDevice device, String name, double cutoff, int[] numbers, Object model, boolean reverse) {
        this.device = device;
        this.name = name;
        this.cutoff = cutoff;
        this.skin = 0.1 * cutoff;
        this.numbers = numbers;
        this.model = model;
        this.reverse = reverse;
        this.host = Memory.newSharedArena(name + " staging");
    }

    /// Reads back the positions and rows of systems `[0, systems)` (atoms `[0, atoms)`) of `c` on
    /// `s` (one synchronisation), updates their lists and uploads the CSR if it changed (`terms`:
    /// the batch's views by row).
    void update(CudaStream s, RelaxColumns c, int systems, int atoms, ModelTerms terms) {
        int cap = c.systemCapacity();
        if (hostPos == null || hostPos.shape(0) < c.pos().shape(0) || hostInts.elementCount() != c.ints().elementCount()) {
            hostPos = host.allocate(DType.F64, c.pos().shape());
            hostInts = host.allocate(DType.I32, c.ints().shape());
            hostDoubles = host.allocate(DType.F64, c.doubles().shape());
        }
        s.copy(c.pos().slice(0, atoms), hostPos.slice(0, atoms));
        s.copy(c.ints(), hostInts);
        s.copy(c.doubles(), hostDoubles);
        s.synchronize();
        MemorySegment ints = hostInts.segment();
        terms.views(ints, cap, systems);
        evaluations++;
        boolean rebuilt = false;
        int count = 0;
        for (int k = 0; k < systems; k++) {
            AtomicSystem view = terms.view(k);
            int first = ints.getAtIndex(I32, (long) RelaxColumns.START * cap + k);
            int n = view.atoms();
            MemorySegment.copy(hostPos.segment(), F64, 24L * first, view.positions(), 0, 3 * n);
            SystemList list = lists.computeIfAbsent(view.id(), id -> new SystemList(new NeighborList(cutoff, skin)));
            if (list.types == null) {
                list.types = types(view);
            }
            if (terms.followCell(k, hostDoubles.segment(), cap)) { // a barostat's cell: the list follows it
                rebuilt |= list.update(view, reverse);
            } else { // its list as it was; the kernels' flag says why it leaves (the FLAG column
                // as read back, this row's flag set: nothing has written it since)
                ints.setAtIndex(I32, (long) RelaxColumns.FLAG * cap + k, RelaxColumns.FLAG_MODEL);
                s.copy(hostInts.slice(RelaxColumns.FLAG, RelaxColumns.FLAG + 1), c.ints().slice(RelaxColumns.FLAG, RelaxColumns.FLAG + 1));
            }
            list.used = evaluations;
            count += list.entries();
        }
        if (evaluations % 64 == 0) {
            lists.values().removeIf(l -> l.used < evaluations - 64);
        }
        if (rebuilt || moved(ints, cap, systems)) {
            assemble(s, terms, ints, cap, systems, atoms, count);
        }
    }

    /// The atom rows the device arrays hold room for (grown by half again when short).
    long atomCapacity() {
        return atomCapacity;
    }

    /// The entries of the last upload.
    int entries() {
        return entries;
    }

    Block type() {
        return type;
    }

    Block start() {
        return start;
    }

    Block nbr() {
        return nbr;
    }

    Block shift() {
        return shift;
    }

    /// Each entry's reverse entry (lists made with `reverse`).
    Block rev() {
        return rev;
    }

    /// Whether a row holds another system, or a system starts at another atom row, than at the
    /// last upload.
    private boolean moved(MemorySegment ints, int cap, int systems) {
        if (systems != uploadedSystems) {
            return true;
        }
        for (int k = 0; k < systems; k++) {
            if (id(ints, cap, k) != rowIds[k] || ints.getAtIndex(I32, (long) RelaxColumns.START * cap + k) != rowStarts[k]) {
                return true;
            }
        }
        return false;
    }

    private static long id(MemorySegment ints, int cap, int k) {
        return ((long) ints.getAtIndex(I32, (long) RelaxColumns.ID_HI * cap + k) << 32)
                | (ints.getAtIndex(I32, (long) RelaxColumns.ID_LO * cap + k) & 0xFFFF_FFFFL);
    }

    /// The batch's CSR (atom rows `[0, atoms)`, `count` entries in all) from the systems' lists,
    /// uploaded on `s`.
    private void assemble(CudaStream s, ModelTerms terms, MemorySegment ints, int cap, int systems, int atoms, int count) {
        if (csrStart.length < atoms + 1) {
            csrStart = new int[atoms + 1];
            csrType = new int[atoms];
        }
        if (csrNbr.length < count) {
            csrNbr = new int[count];
            csrRev = new int[reverse ? count : 0];
            csrShift = new double[3 * count];
        }
        if (rowIds.length < systems) {
            rowIds = new long[Math.max(systems, 2 * rowIds.length)];
            rowStarts = new int[rowIds.length];
        }
        int e = 0;
        int row = 0;
        for (int k = 0; k < systems; k++) {
            AtomicSystem view = terms.view(k);
            int first = ints.getAtIndex(I32, (long) RelaxColumns.START * cap + k);
            SystemList list = lists.get(view.id());
            for (; row < first; row++) { // rows between systems (none while packed): no entries
                csrStart[row + 1] = e;
            }
            int n = view.atoms();
            int base = e;
            for (int i = 0; i < n; i++) {
                csrType[first + i] = list.types[i];
                for (int q = list.start[i]; q < list.start[i + 1]; q++) {
                    csrNbr[e] = first + list.partner[q];
                    if (reverse) {
                        csrRev[e] = base + list.rev[q];
                    }
                    System.arraycopy(list.shift, 3 * q, csrShift, 3 * e, 3);
                    e++;
                }
                csrStart[first + i + 1] = e;
            }
            row = first + n;
            rowIds[k] = view.id();
            rowStarts[k] = first;
        }
        for (; row < atoms; row++) {
            csrStart[row + 1] = e;
        }
        csrStart[0] = 0;
        uploadedSystems = systems;
        entries = e;
        fit(atoms, e);
        MemorySegment.copy(csrStart, 0, hostStart.segment(), I32, 0, atoms + 1);
        s.copy(hostStart.slice(0, atoms + 1L), start.slice(0, atoms + 1L));
        if (atoms > 0) {
            MemorySegment.copy(csrType, 0, hostType.segment(), I32, 0, atoms);
            s.copy(hostType.slice(0, atoms), type.slice(0, atoms));
        }
        if (e > 0) {
            MemorySegment.copy(csrNbr, 0, hostNbr.segment(), I32, 0, e);
            s.copy(hostNbr.slice(0, e), nbr.slice(0, e));
            MemorySegment.copy(csrShift, 0, hostShift.segment(), F64, 0, 3 * e);
            s.copy(hostShift.slice(0, 3L * e), shift.slice(0, 3L * e));
            if (reverse) {
                MemorySegment.copy(csrRev, 0, hostRev.segment(), I32, 0, e);
                s.copy(hostRev.slice(0, e), rev.slice(0, e));
            }
        }
    }

    /// Device blocks (and their host staging) for `atoms` atom rows and `count` list entries
    /// (grown by half again when short; the old ones freed — the stream is idle here, after the
    /// read-back, and a copy from pageable host memory takes its bytes when enqueued).
    private void fit(long atoms, long count) {
        if (atoms <= atomCapacity && count <= entryCapacity) {
            return;
        }
        long a = Math.max(atoms, atomCapacity + atomCapacity / 2);
        long m = Math.max(Math.max(1, count), entryCapacity + entryCapacity / 2);
        if (listArena != null) {
            listArena.close();
            listHost.close();
        }
        listArena = device.newArena(name + " lists");
        listHost = Memory.newSharedArena(name + " list staging");
        hostStart = listHost.allocate(DType.I32, a + 1);
        hostType = listHost.allocate(DType.I32, Math.max(1, a));
        hostNbr = listHost.allocate(DType.I32, m);
        hostShift = listHost.allocate(DType.F64, 3 * m);
        type = listArena.allocate(DType.I32, Math.max(1, a));
        start = listArena.allocate(DType.I32, a + 1);
        nbr = listArena.allocate(DType.I32, m);
        shift = listArena.allocate(DType.F64, 3 * m);
        if (reverse) {
            hostRev = listHost.allocate(DType.I32, m);
            rev = listArena.allocate(DType.I32, m);
        }
        atomCapacity = a;
        entryCapacity = m;
    }

    /// Each atom's element in the model's order; fails naming the system and an element the model lacks.
    private int[] types(AtomicSystem s) {
        int[] out = new int[s.atoms()];
        for (int i = 0; i < out.length; i++) {
            int e = 0;
            while (e < numbers.length && numbers[e] != s.numbers()[i]) {
                e++;
            }
            if (e == numbers.length) {
                throw new IllegalArgumentException("system " + s.id() + ": atom " + i + " is element Z=" + s.numbers()[i] + ", which " + model
                        + " does not have (it has Z=" + Arrays.toString(numbers) + ")");
            }
            out[i] = e;
        }
        return out;
    }

    @Override
    public void close() {
        if (listArena != null) {
            listArena.close();
            listHost.close();
        }
        host.close();
    }

    /// One system's neighbour list and its full rows: atom i's partners and image shifts in
    /// `[start[i], start[i + 1])`, sorted by partner, then image; `rev[q]`: the entry (in the
    /// system's rows) of i in its partner's row with the opposite image.
    private static final class SystemList {
        final NeighborList half;
        int[] types;
        int[] start = new int[1];
        int[] partner = new int[0];
        int[] rev = new int[0];
        int[] code = new int[0]; // each entry's image code
        double[] shift = new double[0];
        long shiftVersion = -1; // the half list's shift table these shifts were taken from
        long used;

        SystemList(NeighborList half) {
            this.half = half;
        }

        int entries() {
            return start[start.length - 1];
        }

        /// Rebuilds the half list if `s`'s atoms moved half the skin since (or never built; under a
        /// changed cell, `NeighborList.update`'s rule), and then the full rows (and their reverse
        /// entries if `reverse`); a cell changed within the skin keeps the rows and takes each
        /// entry's shift from the new cell. Returns whether the rows or their shifts changed.
        boolean update(AtomicSystem s, boolean reverse) {
            if (!half.update(s) && start.length == s.atoms() + 1) {
                if (half.shiftVersion() == shiftVersion) {
                    return false;
                }
                double[] table = half.imageShifts();
                for (int q = 0; q < code.length; q++) {
                    System.arraycopy(table, 3 * code[q], shift, 3 * q, 3);
                }
                shiftVersion = half.shiftVersion();
                return true;
            }
            shiftVersion = half.shiftVersion();
            int n = s.atoms();
            int[] hs = half.start();
            int[] he = half.end();
            int[] second = half.second();
            short[] codes = half.imageCodes();
            double[] table = half.imageShifts();
            int side = (int) Math.round(Math.cbrt(table.length / 3.0)); // codes run over side³ images
            int top = side * side * side - 1; // the code of the opposite image: top − code
            start = new int[n + 1];
            for (int i = 0; i < n; i++) {
                for (int q = hs[i]; q < he[i]; q++) {
                    start[i + 1]++;
                    start[second[q] + 1]++;
                }
            }
            for (int i = 0; i < n; i++) {
                start[i + 1] += start[i];
            }
            int m = start[n];
            long images = (long) side * side * side;
            long[] keys = new long[m]; // partner · images + image code: an atom's entries sort by both
            int[] fill = Arrays.copyOf(start, n);
            for (int i = 0; i < n; i++) {
                for (int q = hs[i]; q < he[i]; q++) {
                    int j = second[q];
                    int code = codes[q];
                    keys[fill[i]++] = j * images + code;
                    keys[fill[j]++] = i * images + (top - code);
                }
            }
            partner = new int[m];
            code = new int[m];
            shift = new double[3 * m];
            for (int i = 0; i < n; i++) {
                Arrays.sort(keys, start[i], start[i + 1]);
                for (int q = start[i]; q < start[i + 1]; q++) {
                    code[q] = (int) (keys[q] % images);
                    partner[q] = (int) (keys[q] / images);
                    System.arraycopy(table, 3 * code[q], shift, 3 * q, 3);
                }
            }
            if (reverse) {
                rev = new int[m];
                for (int i = 0; i < n; i++) {
                    for (int q = start[i]; q < start[i + 1]; q++) {
                        int j = partner[q];
                        long back = i * images + (top - keys[q] % images);
                        rev[q] = Arrays.binarySearch(keys, start[j], start[j + 1], back);
                    }
                }
            }
            return true;
        }
    }
}
