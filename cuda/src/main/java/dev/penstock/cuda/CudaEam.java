package dev.penstock.cuda;

import dev.penstock.atoms.device.ModelTerms;
import dev.penstock.atoms.device.RelaxColumns;
import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.potential.Eam;
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

/// EAM (`Eam`: funcfl, setfl, Finnis–Sinclair) as a device stage's shared evaluation on a CUDA
/// device: `eam.cu`'s three passes (density, embedding, force: one thread per atom over a full
/// neighbour list, every sum a gather in list order) over the whole packed batch, then
/// `relax.cu`'s per-system reduction (energy, max |F_i|, flags in atom order).
///
/// ```
///   evaluate ─▶ pos, ints, doubles rows ─DtoH─▶ host  (one synchronisation)
///            ─▶ per system: its neighbour list by id (rebuilt when an atom moved half the skin)
///               as full, sorted rows (partner, image): the batch's CSR, uploaded when a list
///               was rebuilt or the rows moved
///            ─▶ eam_density ─▶ eam_embed ─▶ eam_force ─▶ relax_reduce ─▶ eam_virial  (the stream)
/// ```
///
/// Each atom's entries are sorted by partner and image, and an entry beyond the cutoff adds
/// nothing, so a system's numbers depend on its positions alone: not on when its list was
/// built (nor on a checkpoint restore), nor on its batch neighbours. They agree with the CPU's
/// `Eam` (a half list, each pair once) to rounding, not bit for bit — the virial too (each atom
/// half its full row's d ⊗ d · fpair, summed per system in atom order into the `VIRIAL`
/// columns). A model error the CPU would report (overlapping atoms) shows here as a non-finite
/// result (`FLAG_NON_FINITE`).
///
/// Threading: the stage's thread (the kernels' caller) alone.
final class CudaEam implements AutoCloseable {
    private static final int THREADS = 128;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;

    private final CudaDevice device;
    private final Eam eam;
    private final Eam.Tables t;
    private final double skin;
    private final CudaFunction density;
    private final CudaFunction embed;
    private final CudaFunction force;
    private final CudaFunction virialSums;
    private final BlockArena tableArena;
    private final Block frho;
    private final Block rhor;
    private final Block z2r;
    private final Block frhoOf;
    private final Block rhorOf;
    private final Block z2rOf;
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
    private long atomCapacity = -1;
    private long entryCapacity = -1;
    private Block type;
    private Block start;
    private Block nbr;
    private Block shift;
    private Block rho;
    private Block fp;
    private Block virial;
    private Block hostPos;
    private Block hostInts;
    private Block hostDoubles;
    private int[] csrStart = new int[1];
    private int[] csrNbr = new int[0];
    private double[] csrShift = new double[0];
    private int[] csrType = new int[0];

    /// `eam`'s tables loaded onto `device`, its kernels from `eam.ptx`.
    CudaEam(CudaDevice device, KernelModule module, Eam eam) {
        this.device = device;
        this.eam = eam;
        this.t = eam.tables();
        this.skin = 0.1 * t.cutoff();
        this.density = module.function("eam_density");
        this.embed = module.function("eam_embed");
        this.force = module.function("eam_force");
        this.virialSums = module.function("eam_virial");
        this.host = Memory.newSharedArena("eam staging");
        this.tableArena = device.newArena("eam tables");
        CudaStream s = (CudaStream) device.newStream("eam tables");
        frho = upload(s, t.frho());
        rhor = upload(s, t.rhor());
        z2r = upload(s, t.z2r());
        frhoOf = upload(s, t.frhoOf());
        rhorOf = upload(s, t.rhorOf());
        z2rOf = upload(s, t.z2rOf());
        s.synchronize();
    }

    /// The model these kernels evaluate.
    Eam model() {
        return eam;
    }

    private Block upload(CudaStream s, double[][] tables) {
        int stride = tables[0].length;
        Block h = host.allocate(DType.F64, (long) tables.length * stride);
        for (int f = 0; f < tables.length; f++) {
            MemorySegment.copy(tables[f], 0, h.segment(), F64, 8L * f * stride, stride);
        }
        Block d = tableArena.allocate(DType.F64, (long) tables.length * stride);
        s.copy(h, d);
        return d;
    }

    private Block upload(CudaStream s, int[] values) {
        Block h = host.allocate(DType.I32, values.length);
        MemorySegment.copy(values, 0, h.segment(), I32, 0, values.length);
        Block d = tableArena.allocate(DType.I32, values.length);
        s.copy(h, d);
        return d;
    }

    /// Energies, forces, max |F_i| and flags of systems `[0, systems)` (atoms `[0, atoms)`) of
    /// `c`, enqueued on `s` after a read-back of the positions (`terms`: the batch's views by row;
    /// `reduce`: `relax_reduce`).
    void evaluate(CudaStream s, RelaxColumns c, int systems, int atoms, ModelTerms terms, CudaFunction reduce) {
        if (systems == 0) {
            return;
        }
        int cap = c.systemCapacity();
        staging(c, cap);
        s.copy(c.pos().slice(0, atoms), hostPos.slice(0, atoms));
        s.copy(c.ints(), hostInts);
        s.copy(c.doubles(), hostDoubles);
        s.synchronize();
        MemorySegment ints = hostInts.segment();
        terms.views(ints, cap, systems);
        evaluations++;
        boolean rebuilt = false;
        int entries = 0;
        for (int k = 0; k < systems; k++) {
            AtomicSystem view = terms.view(k);
            int first = ints.getAtIndex(I32, (long) RelaxColumns.START * cap + k);
            int n = view.atoms();
            MemorySegment.copy(hostPos.segment(), F64, 24L * first, view.positions(), 0, 3 * n);
            SystemList list = lists.computeIfAbsent(view.id(), id -> new SystemList(new NeighborList(t.cutoff(), skin)));
            if (list.types == null) {
                list.types = types(view);
            }
            rebuilt |= list.update(view);
            list.used = evaluations;
            entries += list.entries();
        }
        if (evaluations % 64 == 0) {
            lists.values().removeIf(l -> l.used < evaluations - 64);
        }
        if (rebuilt || moved(ints, cap, systems)) {
            assemble(s, terms, ints, cap, systems, atoms, entries);
        }
        int grid = Math.max(1, (atoms + THREADS - 1) / THREADS);
        int rStride = t.rhor()[0].length;
        int fStride = t.frho()[0].length;
        int ne = t.numbers().length;
        double cutsq = t.cutoff() * t.cutoff();
        s.launchKernel(density, grid, 1, THREADS, 0, atoms, c.pos(), type, start, nbr, shift, rhor, rStride, rhorOf, ne, cutsq, t.rdr(), t.nr(),
                rho);
        s.launchKernel(embed, grid, 1, THREADS, 0, atoms, type, rho, frho, fStride, frhoOf, t.rdrho(), t.nrho(), t.rhomax(), fp,
                c.atomEnergy());
        s.launchKernel(force, grid, 1, THREADS, 0, atoms, c.pos(), type, start, nbr, shift, rhor, rStride, rhorOf, z2r, t.z2r()[0].length, z2rOf,
                ne, cutsq, t.rdr(), t.nr(), fp, c.force(), c.atomEnergy(), virial);
        int systemGrid = Math.max(1, (systems + THREADS - 1) / THREADS);
        s.launchKernel(reduce, systemGrid, 1, THREADS, 0, systems, c.ints(), cap, c.force(), c.atomEnergy(), c.doubles());
        s.launchKernel(virialSums, systemGrid, 1, THREADS, 0, systems, c.ints(), cap, virial, c.doubles());
    }

    /// Host staging for columns of `cap` systems and `c`'s atoms.
    private void staging(RelaxColumns c, int cap) {
        if (hostPos == null || hostPos.shape(0) < c.pos().shape(0) || hostInts.elementCount() != c.ints().elementCount()) {
            hostPos = host.allocate(DType.F64, c.pos().shape());
            hostInts = host.allocate(DType.I32, c.ints().shape());
            hostDoubles = host.allocate(DType.F64, c.doubles().shape());
        }
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

    /// The batch's CSR (atom rows `[0, atoms)`, `entries` in all) from the systems' lists,
    /// uploaded on `s`.
    private void assemble(CudaStream s, ModelTerms terms, MemorySegment ints, int cap, int systems, int atoms, int entries) {
        if (csrStart.length < atoms + 1) {
            csrStart = new int[atoms + 1];
            csrType = new int[atoms];
        }
        if (csrNbr.length < entries) {
            csrNbr = new int[entries];
            csrShift = new double[3 * entries];
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
            for (int i = 0; i < n; i++) {
                csrType[first + i] = list.types[i];
                for (int q = list.start[i]; q < list.start[i + 1]; q++) {
                    csrNbr[e] = first + list.partner[q];
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
        }
    }

    /// Device blocks (and their host staging) for `atoms` atom rows and `entries` list entries
    /// (grown by half again when short; the old ones freed — the stream is idle here, after the
    /// read-back, and a copy from pageable host memory takes its bytes when enqueued).
    private void fit(long atoms, long entries) {
        if (atoms <= atomCapacity && entries <= entryCapacity) {
            return;
        }
        long a = Math.max(atoms, atomCapacity + atomCapacity / 2);
        long m = Math.max(Math.max(1, entries), entryCapacity + entryCapacity / 2);
        if (listArena != null) {
            listArena.close();
            listHost.close();
        }
        listArena = device.newArena("eam lists");
        listHost = Memory.newSharedArena("eam list staging");
        hostStart = listHost.allocate(DType.I32, a + 1);
        hostType = listHost.allocate(DType.I32, Math.max(1, a));
        hostNbr = listHost.allocate(DType.I32, m);
        hostShift = listHost.allocate(DType.F64, 3 * m);
        type = listArena.allocate(DType.I32, Math.max(1, a));
        start = listArena.allocate(DType.I32, a + 1);
        rho = listArena.allocate(DType.F64, Math.max(1, a));
        fp = listArena.allocate(DType.F64, Math.max(1, a));
        virial = listArena.allocate(DType.F64, 6 * Math.max(1, a));
        nbr = listArena.allocate(DType.I32, m);
        shift = listArena.allocate(DType.F64, 3 * m);
        atomCapacity = a;
        entryCapacity = m;
    }

    /// Each atom's element in the file's order; fails naming the system and an element the file lacks.
    private int[] types(AtomicSystem s) {
        int[] numbers = t.numbers();
        int[] out = new int[s.atoms()];
        for (int i = 0; i < out.length; i++) {
            int e = 0;
            while (e < numbers.length && numbers[e] != s.numbers()[i]) {
                e++;
            }
            if (e == numbers.length) {
                throw new IllegalArgumentException("system " + s.id() + ": atom " + i + " is element Z=" + s.numbers()[i] + ", which " + eam
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
        tableArena.close();
        host.close();
    }

    /// One system's neighbour list and its full rows: atom i's partners and image shifts in
    /// `[start[i], start[i + 1])`, sorted by partner, then image.
    private static final class SystemList {
        final NeighborList half;
        int[] types;
        int[] start = new int[1];
        int[] partner = new int[0];
        double[] shift = new double[0];
        long used;

        SystemList(NeighborList half) {
            this.half = half;
        }

        int entries() {
            return start[start.length - 1];
        }

        /// Rebuilds the half list if `s`'s atoms moved half the skin since (or never built), and
        /// then the full rows; returns whether it did.
        boolean update(AtomicSystem s) {
            if (!half.update(s) && start.length == s.atoms() + 1) {
                return false;
            }
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
            shift = new double[3 * m];
            for (int i = 0; i < n; i++) {
                Arrays.sort(keys, start[i], start[i + 1]);
                for (int q = start[i]; q < start[i + 1]; q++) {
                    int code = (int) (keys[q] % images);
                    partner[q] = (int) (keys[q] / images);
                    System.arraycopy(table, 3 * code, shift, 3 * q, 3);
                }
            }
            return true;
        }
    }
}
