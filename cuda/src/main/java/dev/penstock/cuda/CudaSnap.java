package dev.penstock.cuda;

import dev.penstock.atoms.device.ModelTerms;
import dev.penstock.atoms.device.RelaxColumns;
import dev.penstock.atoms.potential.DescriptorModel;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.potential.ModelSum;
import dev.penstock.atoms.potential.Zbl;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;

/// SNAP and ML-IAP (`DescriptorModel`: linear, quadratic and nn models over the SNAP bispectrum),
/// alone or summed with ZBL (LAMMPS's `*.snap` and `*.mliap` files: `hybrid/overlay zbl …`), as
/// a device stage's shared evaluation on a CUDA device: `snap.cu`'s passes over the whole
/// packed batch, one thread per atom over a full neighbour list, then `relax.cu`'s per-system
/// reduction (energy, max |F_i|, flags in atom order) and the virial's.
///
/// ```
///   evaluate ─▶ BatchLists: the batch's CSR with reverse entries (one read-back, an upload when
///               a list was rebuilt or the rows moved)
///            ─▶ snap_ui ─▶ snap_bi ─▶ snap_linear | mliap_nn ─▶ snap_yi ─▶ snap_deidrj
///            ─▶ snap_force (─▶ zbl_add) ─▶ relax_reduce ─▶ snap_virial  (the stream)
/// ```
///
/// Every sum is a gather in list order — an atom's force is its own entries' dE_i/dr_j less its
/// partners' reverse entries — so a system's numbers depend on its positions alone. They agree
/// with the CPU's `DescriptorModel` (each atom's pair forces scattered) to rounding, not bit for
/// bit. A model error the CPU would report (a non-finite energy) shows here as a non-finite
/// result (`FLAG_NON_FINITE`). Per-atom working memory (U_tot, Z, B, β, Y and each thread's
/// scratch) grows with the batch: ~(4·idxu + 2·idxz + 2·descriptors)·8 bytes an atom (twojmax 8:
/// ~50 KiB).
///
/// Threading: the stage's thread (the kernels' caller) alone.
final class CudaSnap implements AutoCloseable {
    private static final int THREADS = 64;

    private final CudaDevice device;
    private final Model model;
    private final DescriptorModel.Tables t;
    private final Zbl zbl; // null: none
    private final CudaFunction zblAdd;
    private final Block zblCoef;
    private final CudaFunction ui;
    private final CudaFunction bi;
    private final CudaFunction linear;
    private final CudaFunction nn;
    private final CudaFunction yi;
    private final CudaFunction deidrj;
    private final CudaFunction force;
    private final CudaFunction virialSums;
    private final BlockArena tableArena;
    private final HostArena host;
    private final Block tab;
    private final Block consts;
    private final Block radius;
    private final Block weight;
    private final Block coeff;
    private final Block scale;
    private final Block nodes;
    private final Block activation;
    private final BatchLists lists;
    // per-atom strides (doubles)
    private final int utotStride;
    private final int zStride;
    private final int bStride;
    private final int scratchStride;
    private BlockArena atomArena;
    private long atomCapacity = -1;
    private long entryCapacity = -1;
    private Block utot;
    private Block zlist;
    private Block blist;
    private Block beta;
    private Block ylist;
    private Block scratch;
    private Block dedr;
    private Block virial;

    /// The models the kernels run: a descriptor model alone, or a sum of it and ZBL (in either
    /// order; LAMMPS's `hybrid/overlay zbl … snap`); null for any other.
    static Model[] parts(Model model) {
        if (model instanceof DescriptorModel d) {
            return new Model[] {d, null};
        }
        if (model instanceof ModelSum sum && sum.parts().size() == 2) {
            Model a = sum.parts().get(0);
            Model b = sum.parts().get(1);
            if (a instanceof Zbl && b instanceof DescriptorModel) {
                return new Model[] {b, a};
            }
            if (b instanceof Zbl && a instanceof DescriptorModel) {
                return new Model[] {a, b};
            }
        }
        return null;
    }

    /// `model`'s tables (`parts(model)` not null) loaded onto `device`, its kernels from `snap.ptx`.
    CudaSnap(CudaDevice device, KernelModule module, Model model) {
        this.device = device;
        this.model = model;
        Model[] parts = parts(model);
        this.t = ((DescriptorModel) parts[0]).tables();
        this.zbl = (Zbl) parts[1];
        this.zblAdd = module.function("zbl_add");
        this.ui = module.function("snap_ui");
        this.bi = module.function("snap_bi");
        this.linear = module.function("snap_linear");
        this.nn = module.function("mliap_nn");
        this.yi = module.function("snap_yi");
        this.deidrj = module.function("snap_deidrj");
        this.force = module.function("snap_force");
        this.virialSums = module.function("snap_virial");
        int ne = t.descriptorElements();
        this.utotStride = 2 * ne * t.idxuMax();
        this.zStride = 2 * ne * ne * t.idxzMax();
        this.bStride = Math.max(1, t.descriptors());
        int nodeSum = 0;
        for (int k : t.nodes()) {
            nodeSum += k;
        }
        this.scratchStride = Math.max(8 * t.idxuMax(), 3 * nodeSum); // U and dU/dr of one neighbour; or the network's nodes
        this.host = Memory.newSharedArena("snap staging");
        this.tableArena = device.newArena("snap tables");
        CudaStream s = (CudaStream) device.newStream("snap tables");
        tab = upload(s, t.index());
        consts = upload(s, t.constants());
        radius = upload(s, t.radius());
        weight = upload(s, t.weight());
        coeff = upload(s, t.coeff());
        scale = upload(s, t.scale().length == 0 ? new double[1] : t.scale());
        nodes = upload(s, t.nodes().length == 0 ? new int[1] : t.nodes());
        activation = upload(s, t.activation().length == 0 ? new int[1] : t.activation());
        int nt = t.numbers().length;
        double[] zc = new double[10 * nt * nt];
        for (int a = 0; zbl != null && a < nt; a++) {
            for (int b = 0; b < nt; b++) {
                System.arraycopy(zbl.pairCoefficients(t.numbers()[a], t.numbers()[b]), 0, zc, 10 * (a * nt + b), 10);
            }
        }
        zblCoef = upload(s, zc);
        s.synchronize();
        double cutoff = zbl == null ? t.cutoff() : Math.max(t.cutoff(), zbl.outer());
        this.lists = new BatchLists(device, "snap", cutoff, t.numbers(), model, true);
    }

    /// The model these kernels evaluate.
    Model model() {
        return model;
    }

    private Block upload(CudaStream s, double[] values) {
        return TableUpload.doubles(s, host, tableArena, values);
    }

    private Block upload(CudaStream s, int[] values) {
        return TableUpload.ints(s, host, tableArena, values);
    }

    /// Energies, forces, max |F_i|, the virial and flags of systems `[0, systems)` (atoms
    /// `[0, atoms)`) of `c`, enqueued on `s` after a read-back of the positions (`terms`: the
    /// batch's views by row; `reduce`: `relax_reduce`).
    void evaluate(CudaStream s, RelaxColumns c, int systems, int atoms, ModelTerms terms, CudaFunction reduce) {
        if (systems == 0) {
            return;
        }
        int cap = c.systemCapacity();
        lists.update(s, c, systems, atoms, terms);
        fit();
        int grid = Math.max(1, (atoms + THREADS - 1) / THREADS);
        int ne = t.descriptorElements();
        s.launchKernel(ui, grid, 1, THREADS, 0, atoms, c.pos(), lists.type(), lists.start(), lists.nbr(), lists.shift(), tab, consts, t.twojmax(),
                t.idxbMax(), t.idxzMax(), ne, t.flags(), t.rfac0(), t.rmin0(), t.rcutfac(), radius, weight, scratch, scratchStride, utot,
                utotStride);
        s.launchKernel(bi, grid, 1, THREADS, 0, atoms, lists.type(), tab, consts, t.twojmax(), t.idxbMax(), t.idxzMax(), ne, t.flags(), utot,
                utotStride, zlist, zStride, blist, bStride);
        if (t.kind() == DescriptorModel.Tables.NN) {
            s.launchKernel(nn, grid, 1, THREADS, 0, atoms, lists.type(), blist, bStride, coeff, t.coeffStride(), scale, t.descriptors(), nodes,
                    activation, t.nodes().length, scratch, scratchStride, c.atomEnergy(), beta);
        } else {
            s.launchKernel(linear, grid, 1, THREADS, 0, atoms, lists.type(), blist, bStride, coeff, t.coeffStride(), t.descriptors(),
                    t.kind() == DescriptorModel.Tables.QUADRATIC ? 1 : 0, c.atomEnergy(), beta);
        }
        s.launchKernel(yi, grid, 1, THREADS, 0, atoms, tab, consts, t.twojmax(), t.idxbMax(), t.idxzMax(), ne, t.flags(), zlist, zStride, beta,
                bStride, ylist, utotStride);
        s.launchKernel(deidrj, grid, 1, THREADS, 0, atoms, c.pos(), lists.type(), lists.start(), lists.nbr(), lists.shift(), tab, consts,
                t.twojmax(), t.idxbMax(), t.idxzMax(), ne, t.flags(), t.rfac0(), t.rmin0(), t.rcutfac(), radius, weight, ylist, utotStride,
                scratch, scratchStride, dedr);
        s.launchKernel(force, grid, 1, THREADS, 0, atoms, c.pos(), lists.start(), lists.nbr(), lists.shift(), lists.rev(), dedr, c.force(),
                virial);
        if (zbl != null) {
            s.launchKernel(zblAdd, grid, 1, THREADS, 0, atoms, c.pos(), lists.type(), lists.start(), lists.nbr(), lists.shift(), zblCoef,
                    t.numbers().length, zbl.inner(), zbl.outer(), c.atomEnergy(), c.force(), virial);
        }
        int systemGrid = Math.max(1, (systems + THREADS - 1) / THREADS);
        s.launchKernel(reduce, systemGrid, 1, THREADS, 0, systems, c.ints(), cap, c.force(), c.atomEnergy(), c.doubles());
        s.launchKernel(virialSums, systemGrid, 1, THREADS, 0, systems, c.ints(), cap, virial, c.doubles());
    }

    /// The per-atom and per-entry device arrays for the lists' capacities (the old ones freed:
    /// the stream is idle after the lists' read-back).
    private void fit() {
        long entries = Math.max(1, lists.entries());
        if (lists.atomCapacity() <= atomCapacity && entries <= entryCapacity) {
            return;
        }
        if (atomArena != null) {
            atomArena.close();
        }
        atomCapacity = Math.max(atomCapacity, lists.atomCapacity());
        entryCapacity = Math.max(entries, entryCapacity + entryCapacity / 2);
        long a = Math.max(1, atomCapacity);
        atomArena = device.newArena("snap atoms");
        utot = atomArena.allocate(DType.F64, a * utotStride);
        ylist = atomArena.allocate(DType.F64, a * utotStride);
        zlist = atomArena.allocate(DType.F64, a * zStride);
        blist = atomArena.allocate(DType.F64, a * bStride);
        beta = atomArena.allocate(DType.F64, a * bStride);
        scratch = atomArena.allocate(DType.F64, a * scratchStride);
        virial = atomArena.allocate(DType.F64, 9 * a);
        dedr = atomArena.allocate(DType.F64, 3 * entryCapacity);
    }

    @Override
    public void close() {
        if (atomArena != null) {
            atomArena.close();
        }
        lists.close();
        tableArena.close();
        host.close();
    }
}
