package dev.penstock.cuda;

import dev.penstock.atoms.device.ModelTerms;
import dev.penstock.atoms.device.RelaxColumns;
import dev.penstock.atoms.device.RelaxKernels;
import dev.penstock.atoms.integrate.Langevin;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.Model;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import dev.penstock.random.Seeds;

/// The in-flight relaxation's batch kernels on a CUDA device (`cuda/src/main/cuda/relax.cu`,
/// shipped as PTX built without fused multiply-adds): one thread per atom for the forces, the
/// NVE and Langevin steps and the atom gather, one per system for the reductions, the FIRE step
/// and the check, every loop in
/// `CpuRelaxKernels`'s order — so the GPU and the CPU give a system the same numbers.
public final class CudaRelaxKernels implements RelaxKernels {
    /// The PTX resource.
    public static final String PTX = "/dev/penstock/cuda/relax.ptx";
    private static final int THREADS = 128;

    /// The EAM kernels' PTX resource.
    public static final String EAM_PTX = "/dev/penstock/cuda/eam.ptx";

    /// The SNAP and ML-IAP kernels' PTX resource.
    public static final String SNAP_PTX = "/dev/penstock/cuda/snap.ptx";

    /// `relax.cu`'s RELAX_LIST_ATOMS and RELAX_LIST_MAX: free and nearest-image systems of this
    /// many atoms are summed over Verlet lists of up to that many partners per atom (as the CPU's
    /// `PairList`; the same bits as all pairs).
    static final int LIST_ATOMS = 1024;
    static final int LIST_MAX = 256;
    /// The list radius and half the skin, in cutoffs (the CPU's lists keep a 12% skin too); under
    /// a changing cell the lists follow it (`relax_list_check`: `NeighborList.update`'s rule).
    private static final double LIST_RADIUS = 1.12;
    private static final double HALF_SKIN = 0.06;

    private final CudaDevice device;
    private final KernelModule module;
    private dev.penstock.memory.BlockArena lists; // the Verlet lists' device memory (null: none yet)
    private int listSystems;
    private int listAtoms;
    private Block listKey;   // per system row: valid, id lo, id hi, start of the system listed there
    private Block listStale; // per system row: list again this step
    private Block listMoved; // per system row: whether an atom broke the skin's rule measured from the origin, from the first atom
    private Block listCell;  // per system row: the diagonal of the cell its lists were built in
    private Block listLimit; // per system row: the deformation since (diagonal), the squared limit, the first atom's displacement
    private Block refPos;    // per atom: where it was at its list's build
    private Block listCount; // per atom: its partners (-1: too many, it sums all pairs)
    private Block list;      // per atom: LIST_MAX partner rows
    private int largest = Integer.MAX_VALUE; // the most atoms of a system in the batch, as its stage last said
    private boolean listed;  // whether the last evaluation kept lists
    private Block binGrid;     // per system row: the bins' origin and width per axis (a build's)
    private Block binGridInts; // per system row: bins per axis, whether binned
    private Block binStart;    // system k's bins start at start + k: where each bin's rows begin
    private Block binAtoms;    // per atom: rows sorted by bin
    private Block binFill;     // binStart's twin: each bin's next free place while rows are sorted in
    private KernelModule eamModule;
    private CudaEam eam;
    private KernelModule snapModule;
    private CudaSnap snap;
    private double pairCutoff = Double.NaN; // the pair model's cutoff, as the last evaluation gave it (a barostat's images)
    private dev.penstock.memory.BlockArena virialArena; // the pair kernels' per-atom virial (null: none yet)
    private int virialAtoms;
    private Block atomVirial;

    /// Loads the kernels onto `device`.
    public CudaRelaxKernels(CudaDevice device) {
        this.device = device;
        this.module = new KernelModule(device, PTX);
    }

    private static CudaStream cuda(Stream stream) {
        if (stream instanceof CudaStream s) {
            return s;
        }
        throw new IllegalArgumentException("the CUDA relaxation kernels run on a CUDA stream, got '" + stream.name() + "' of "
                + stream.device().name());
    }

    private static int grid(int n) {
        return Math.max(1, (n + THREADS - 1) / THREADS);
    }

    @Override
    public void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, Pair pair) {
        CudaStream s = cuda(stream);
        pairCutoff = Math.sqrt(pair.rc2());
        int cap = c.systemCapacity();
        // a system this large may be listed: bring its lists up to date (a batch whose stage
        // says it holds no such system launches none of this and keeps no list memory)
        boolean listing = atoms >= LIST_ATOMS && largest >= LIST_ATOMS;
        fitLists(s, c, listing);
        if (listing && !listed) {
            clearKeys(s); // lists left alone while no system was large may be a compaction out of date
        }
        listed = listing;
        if (listing) {
            double rc = Math.sqrt(pair.rc2());
            s.launchKernel(module.function("relax_list_check"), grid(systems), 1, THREADS, 0, systems, c.ints(), cap, c.doubles(), c.pos(),
                    refPos, listKey, listStale, listMoved, listCell, listLimit, 2 * HALF_SKIN * rc, LIST_RADIUS * rc);
            s.launchKernel(module.function("relax_list_moved"), grid(atoms), 1, THREADS, 0, atoms, c.atomSystem(), c.ints(), cap, c.pos(),
                    refPos, listStale, listMoved, listLimit);
            s.launchKernel(module.function("relax_list_grid"), grid(systems), 1, THREADS, 0, systems, c.ints(), cap, c.doubles(), c.pos(),
                    listStale, listMoved, LIST_RADIUS * rc, binGrid, binGridInts, binStart, listCell);
            s.launchKernel(module.function("relax_list_count"), grid(atoms), 1, THREADS, 0, atoms, c.atomSystem(), c.ints(), cap, c.doubles(),
                    c.pos(), listStale, binGrid, binGridInts, binStart);
            s.launchKernel(module.function("relax_list_prefix"), grid(systems), 1, THREADS, 0, systems, c.ints(), cap, listStale, binGridInts,
                    binStart, binFill);
            s.launchKernel(module.function("relax_list_scatter"), grid(atoms), 1, THREADS, 0, atoms, c.atomSystem(), c.ints(), cap,
                    c.doubles(), c.pos(), listStale, binGrid, binGridInts, binFill, binAtoms);
            s.launchKernel(module.function("relax_list_build"), grid(atoms), 1, THREADS, 0, atoms, c.atomSystem(), c.ints(), cap, c.doubles(),
                    c.pos(), listStale, LIST_RADIUS * LIST_RADIUS * pair.rc2(), refPos, listCount, list, binGrid, binGridInts, binStart,
                    binAtoms);
        }
        fitVirial(c.atomCapacity());
        s.launchKernel(module.function("relax_forces"), grid(atoms), 1, THREADS, 0, atoms, c.atomSystem(), c.ints(), cap, c.doubles(), c.pos(), pair.kind(),
                pair.a(), pair.b(), pair.c(), pair.rc2(), pair.shift(), pair.od2(), c.force(), c.atomEnergy(), listCount, list, atomVirial);
        s.launchKernel(module.function("relax_reduce"), grid(systems), 1, THREADS, 0, systems, c.ints(), cap, c.force(), c.atomEnergy(),
                c.doubles());
        s.launchKernel(module.function("relax_virial"), grid(systems), 1, THREADS, 0, systems, c.ints(), cap, atomVirial, c.doubles());
    }

    /// The pair kernels write the virial (`relax_virial`: each system's into its `VIRIAL` columns).
    @Override
    public boolean pairVirial() {
        return true;
    }

    /// The per-atom pair virial's device memory (6 doubles an atom) for `atoms` atom rows (the
    /// old block freed: the stream is idle when the batch's capacity changes).
    private void fitVirial(int atoms) {
        if (virialArena != null && virialAtoms >= atoms) {
            return;
        }
        if (virialArena != null) {
            virialArena.close();
        }
        virialAtoms = atoms;
        virialArena = device.newArena("relax pair virial");
        atomVirial = virialArena.allocate(dev.penstock.memory.DType.F64, 6L * Math.max(1, atoms));
    }

    /// EAM (`CudaEam`: `eam.cu`'s passes over the batch), SNAP and ML-IAP, alone or summed with
    /// ZBL (`CudaSnap`: `snap.cu`'s), run here; a stage refuses any other model when its batch is made.
    @Override
    public boolean runs(Model model) {
        return model instanceof Eam || CudaSnap.parts(model) != null;
    }

    @Override
    public void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, ModelTerms terms) {
        pairCutoff = terms.model().cutoff(); // the image columns a barostat rewrites (the pair kernels' only)
        if (CudaSnap.parts(terms.model()) != null) {
            Model model = terms.model();
            if (snap == null || snap.model() != model) {
                if (snap != null) {
                    snap.close();
                }
                if (snapModule == null) {
                    snapModule = new KernelModule(device, SNAP_PTX);
                }
                snap = new CudaSnap(device, snapModule, model);
            }
            snap.evaluate(cuda(stream), c, systems, atoms, terms, module.function("relax_reduce"));
            return;
        }
        if (!(terms.model() instanceof Eam model)) {
            throw new UnsupportedOperationException("the CUDA relaxation kernels run EAM, SNAP and ML-IAP (with ZBL), Lennard-Jones and Morse, not "
                    + terms.model());
        }
        if (eam == null || eam.model() != model) {
            if (eam != null) {
                eam.close();
            }
            if (eamModule == null) {
                eamModule = new KernelModule(device, EAM_PTX);
            }
            eam = new CudaEam(device, eamModule, model);
        }
        eam.evaluate(cuda(stream), c, systems, atoms, terms, module.function("relax_reduce"), module.function("relax_virial"));
    }

    /// (Re)makes the lists' device memory for `c`'s capacities (the rows' keys cleared: every
    /// large system is listed anew) — per atom only once the batch holds enough atoms for a
    /// system to be listed (`large`; the kernels still take the arrays: one atom's until then,
    /// which no kernel reads, as no system is listed).
    private void fitLists(CudaStream s, RelaxColumns c, boolean large) {
        int atoms = large ? c.atomCapacity() : 1;
        if (lists != null && listSystems >= c.systemCapacity() && listAtoms >= atoms) {
            return;
        }
        closeLists();
        listSystems = c.systemCapacity();
        listAtoms = atoms;
        lists = device.newArena("relax lists");
        listKey = lists.allocate(dev.penstock.memory.DType.I32, 4L * listSystems);
        listStale = lists.allocate(dev.penstock.memory.DType.I32, listSystems);
        listMoved = lists.allocate(dev.penstock.memory.DType.I32, 2L * listSystems);
        listCell = lists.allocate(dev.penstock.memory.DType.F64, 3L * listSystems);
        listLimit = lists.allocate(dev.penstock.memory.DType.F64, 8L * listSystems);
        refPos = lists.allocate(dev.penstock.memory.DType.F64, 3L * listAtoms);
        listCount = lists.allocate(dev.penstock.memory.DType.I32, listAtoms);
        list = lists.allocate(dev.penstock.memory.DType.I32, (long) LIST_MAX * listAtoms);
        binGrid = lists.allocate(dev.penstock.memory.DType.F64, 6L * listSystems);
        binGridInts = lists.allocate(dev.penstock.memory.DType.I32, 4L * listSystems);
        binStart = lists.allocate(dev.penstock.memory.DType.I32, (long) listAtoms + listSystems + 1);
        binAtoms = lists.allocate(dev.penstock.memory.DType.I32, listAtoms);
        binFill = lists.allocate(dev.penstock.memory.DType.I32, (long) listAtoms + listSystems + 1);
        clearKeys(s);
    }

    /// Marks every row's list out of date (each large system is listed anew at its next evaluation).
    private void clearKeys(CudaStream s) {
        try (dev.penstock.memory.HostArena zeros = dev.penstock.memory.Memory.newSharedArena("relax list keys")) {
            s.copy(zeros.allocate(dev.penstock.memory.DType.I32, 4L * listSystems), listKey);
            s.synchronize();
        }
    }

    @Override
    public void pickSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems) {
        moveSystems(stream, from, to, map, systems, 1);
    }

    @Override
    public void putSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems) {
        moveSystems(stream, from, to, map, systems, 0);
    }

    /// `relax_move_systems`: `pick` 1 packs rows `map[k]` into rows k, 0 writes rows k back to `map[k]`.
    private void moveSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems, int pick) {
        cuda(stream).launchKernel(module.function("relax_move_systems"), grid(systems), 1, THREADS, 0, systems, map, pick, from.ints(),
                from.systemCapacity(), from.doubles(), to.ints(), to.systemCapacity(), to.doubles());
    }

    @Override
    public void largestSystem(int atoms) {
        largest = atoms;
    }

    /// Whether the last evaluation kept Verlet lists, and for how many atoms the lists' device
    /// memory is made (1: none yet): for the tests.
    boolean listing() {
        return listed;
    }

    int listMemoryAtoms() {
        return lists == null ? 0 : listAtoms;
    }

    /// Each of the first `atoms` atoms' listed partners as the last evaluation left them (-1: too
    /// many, it sums all pairs; meaningless for atoms of systems not listed), or none before any
    /// list: for the tests, which hold large systems to their lists (call it while the batch's stream is idle).
    int[] listCounts(int atoms) {
        if (lists == null) {
            return new int[0];
        }
        Stream s = device.newStream("relax list counts");
        try (dev.penstock.memory.HostArena host = dev.penstock.memory.Memory.newSharedArena("relax list counts")) {
            Block h = host.allocate(dev.penstock.memory.DType.I32, atoms);
            s.copy(listCount.slice(0, atoms), h);
            s.synchronize();
            return h.segment().toArray(java.lang.foreign.ValueLayout.JAVA_INT);
        }
    }

    private void closeLists() {
        if (lists != null) {
            lists.close();
            lists = null;
        }
        if (virialArena != null) {
            virialArena.close();
            virialArena = null;
        }
    }

    @Override
    public void close() {
        if (eam != null) {
            eam.close();
            eam = null;
        }
        if (snap != null) {
            snap.close();
            snap = null;
        }
        closeLists();
    }

    @Override
    public void fireStep(Stream stream, RelaxColumns c, int systems, boolean massWeighted, double maxStep2, int sub) {
        cuda(stream).launchKernel(module.function("relax_fire_step"), grid(systems), 1, THREADS, 0, systems, c.ints(), c.systemCapacity(),
                c.doubles(), c.pos(), c.vel(), c.force(), c.mass(), massWeighted ? 1 : 0, maxStep2, sub);
    }

    @Override
    public void nveBefore(Stream stream, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
        nve(cuda(stream), c, atoms, 1, maxStep2, sub);
    }

    @Override
    public void fire2Step(Stream stream, RelaxColumns c, int systems, double maxStep2, int sub) {
        cuda(stream).launchKernel(module.function("relax_fire2_step"), grid(systems), 1, THREADS, 0, systems, c.ints(), c.systemCapacity(),
                c.doubles(), c.pos(), c.vel(), c.force(), c.last(), c.mass(), maxStep2, sub);
    }

    @Override
    public boolean langevin() {
        return true;
    }

    @Override
    public void langevinBefore(Stream stream, RelaxColumns c, int systems, int atoms, Thermostat t, double maxStep2, int sub) {
        cuda(stream).launchKernel(module.function("relax_langevin"), grid(atoms), 1, THREADS, 0, atoms, c.atomSystem(), c.ints(),
                c.systemCapacity(), c.doubles(), c.pos(), c.vel(), c.force(), c.mass(), t.kT(), t.c1(), t.c2(),
                Seeds.absorbed(t.seed(), Langevin.DOMAIN, 2), maxStep2, sub);
    }

    @Override
    public void nveAfter(Stream stream, RelaxColumns c, int systems, int atoms, int sub) {
        nve(cuda(stream), c, atoms, 0, Double.POSITIVE_INFINITY, sub);
    }

    @Override
    public boolean noseHoover() {
        return true;
    }

    /// The barostat runs under every model these kernels run: the pair kernels scan images from the
    /// cell's columns, which `relax_mtk` rewrites, and their Verlet lists follow it
    /// (`relax_list_check`); EAM's, SNAP's and ML-IAP's lists (`BatchLists`) take each entry's
    /// image shift from the new cell, or rebuild where the strain asks.
    @Override
    public boolean barostat(dev.penstock.atoms.potential.Model model) {
        return model instanceof dev.penstock.atoms.potential.LennardJones || model instanceof dev.penstock.atoms.potential.Morse || runs(model);
    }

    @Override
    public boolean barostat() {
        return true;
    }

    @Override
    public boolean cellRelaxation() {
        return true;
    }

    /// ASE's FIRE and FIRE 2.0 over the cell (`relax_fire_cell`) under every model these kernels run.
    @Override
    public boolean cellRelaxation(dev.penstock.atoms.device.SubStage.CellRelaxation r, dev.penstock.atoms.potential.Model model) {
        return barostat(model);
    }

    @Override
    public void fireCellStep(Stream stream, RelaxColumns c, int systems, dev.penstock.atoms.device.SubStage.CellRelaxation r, double maxStep2,
                             int sub) {
        cuda(stream).launchKernel(module.function("relax_fire_cell"), grid(systems), 1, THREADS, 0, systems, c.ints(), c.systemCapacity(),
                c.doubles(), c.pos(), c.vel(), c.force(), c.last(), c.mass(), r.fire2() ? 1 : 0, r.p(), maskBits(r), r.hydrostatic() ? 1 : 0,
                pairCutoff, maxStep2, sub);
    }

    @Override
    public void cellForces(Stream stream, RelaxColumns c, int systems, dev.penstock.atoms.device.SubStage.CellRelaxation r, int sub) {
        cuda(stream).launchKernel(module.function("relax_cell_forces"), grid(systems), 1, THREADS, 0, systems, c.ints(), c.systemCapacity(),
                c.doubles(), c.force(), r.p(), maskBits(r), r.hydrostatic() ? 1 : 0, sub);
    }

    /// The mask's six Voigt flags as bits (bit q: component q relaxed).
    private static int maskBits(dev.penstock.atoms.device.SubStage.CellRelaxation r) {
        int bits = 0;
        for (int q = 0; q < 6; q++) {
            bits |= r.mask()[q] != 0 ? 1 << q : 0;
        }
        return bits;
    }

    /// `relax_mtk`'s first half (one thread per system).
    @Override
    public void barostatBefore(Stream stream, RelaxColumns c, int systems, int atoms, dev.penstock.atoms.device.SubStage.Barostat b,
                               double maxStep2, int sub) {
        mtk(cuda(stream), c, systems, 1, b, maxStep2, sub);
    }

    /// `relax_mtk`'s second half.
    @Override
    public void barostatAfter(Stream stream, RelaxColumns c, int systems, int atoms, dev.penstock.atoms.device.SubStage.Barostat b, int sub) {
        mtk(cuda(stream), c, systems, 0, b, Double.POSITIVE_INFINITY, sub);
    }

    private void mtk(CudaStream s, RelaxColumns c, int systems, int before, dev.penstock.atoms.device.SubStage.Barostat b, double maxStep2, int sub) {
        s.launchKernel(module.function("relax_mtk"), grid(systems), 1, THREADS, 0, systems, before, c.ints(), c.systemCapacity(), c.doubles(),
                c.pos(), c.vel(), c.force(), c.mass(), b.baro().couple(), b.baro().p(), b.baro().pfreq(), b.baro().pchain(),
                b.thermostat() ? 1 : 0, b.thermostat() ? b.chain() : 1, b.tloop(), b.thermostat() ? b.kT() : 0, 1 / b.tdamp(), b.ptempKT(),
                pairCutoff, maxStep2, sub);
    }

    /// `relax_nh_chain`'s half step (the chain, the velocities scaled), then `relax_nve`'s first half.
    @Override
    public void noseHooverBefore(Stream stream, RelaxColumns c, int systems, int atoms, dev.penstock.atoms.device.SubStage.NoseHoover nh,
                                 double maxStep2, int sub) {
        CudaStream s = cuda(stream);
        chain(s, c, systems, 1, nh, sub);
        nve(s, c, atoms, 1, maxStep2, sub);
    }

    /// `relax_nve`'s second half, then `relax_nh_chain`'s half step.
    @Override
    public void noseHooverAfter(Stream stream, RelaxColumns c, int systems, int atoms, dev.penstock.atoms.device.SubStage.NoseHoover nh,
                                int sub) {
        CudaStream s = cuda(stream);
        nve(s, c, atoms, 0, Double.POSITIVE_INFINITY, sub);
        chain(s, c, systems, 0, nh, sub);
    }

    private void chain(CudaStream s, RelaxColumns c, int systems, int before, dev.penstock.atoms.device.SubStage.NoseHoover nh, int sub) {
        s.launchKernel(module.function("relax_nh_chain"), grid(systems), 1, THREADS, 0, systems, before, c.ints(), c.systemCapacity(),
                c.doubles(), c.vel(), c.mass(), nh.chain(), nh.tloop(), nh.kT(), 1 / nh.tdamp(), sub);
    }

    /// Every atom of `[0, atoms)` (its system's row says whether it moves).
    private void nve(CudaStream s, RelaxColumns c, int atoms, int before, double maxStep2, int sub) {
        s.launchKernel(module.function("relax_nve"), grid(atoms), 1, THREADS, 0, atoms, before, c.atomSystem(), c.ints(),
                c.systemCapacity(), c.doubles(), c.pos(), c.vel(), c.force(), c.mass(), maxStep2, sub);
    }

    @Override
    public void check(Stream stream, RelaxColumns c, int systems, double fmax, double energyTolerance, int budget, int sub) {
        cuda(stream).launchKernel(module.function("relax_check"), grid(systems), 1, THREADS, 0, systems, c.ints(), c.systemCapacity(),
                c.doubles(), fmax, energyTolerance, budget, sub);
    }

    @Override
    public void gather(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems, int atoms) {
        CudaStream s = cuda(stream);
        s.launchKernel(module.function("relax_gather_systems"), grid(systems), 1, THREADS, 0, systems, map, from.ints(), from.systemCapacity(),
                from.doubles(), to.ints(), to.systemCapacity(), to.doubles(), to.atomSystem());
        if (atoms > 0) {
            s.launchKernel(module.function("relax_gather_atoms"), grid(atoms), 1, THREADS, 0, atoms, systems, map, from.pos(), from.vel(),
                    from.force(), from.last(), from.mass(), from.atomEnergy(), to.pos(), to.vel(), to.force(), to.last(), to.mass(),
                    to.atomEnergy());
        }
    }
}
