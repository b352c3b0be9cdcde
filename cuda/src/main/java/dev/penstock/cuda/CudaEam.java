package dev.penstock.cuda;

import dev.penstock.atoms.device.ModelTerms;
import dev.penstock.atoms.device.RelaxColumns;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/// EAM (`Eam`: funcfl, setfl, Finnis–Sinclair) as a device stage's shared evaluation on a CUDA
/// device: `eam.cu`'s three passes (density, embedding, force: one thread per atom over a full
/// neighbour list, every sum a gather in list order) over the whole packed batch, then
/// `relax.cu`'s per-system reduction (energy, max |F_i|, flags in atom order).
///
/// ```
///   evaluate ─▶ pos, ints, doubles rows ─DtoH─▶ host  (one synchronisation)
///            ─▶ BatchLists: per system its neighbour list by id (rebuilt when an atom moved half
///               the skin) as full, sorted rows (partner, image): the batch's CSR, uploaded when
///               a list was rebuilt or the rows moved
///            ─▶ eam_density ─▶ eam_embed ─▶ eam_force ─▶ relax_reduce ─▶ relax_virial  (the stream)
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
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;

    private final CudaDevice device;
    private final Eam eam;
    private final Eam.Tables t;
    private final CudaFunction density;
    private final CudaFunction embed;
    private final CudaFunction force;
    private final BlockArena tableArena;
    private final Block frho;
    private final Block rhor;
    private final Block z2r;
    private final Block frhoOf;
    private final Block rhorOf;
    private final Block z2rOf;
    private final HostArena host;
    private final BatchLists lists;
    private BlockArena atomArena;
    private long atomCapacity = -1;
    private Block rho;
    private Block fp;
    private Block virial;

    /// `eam`'s tables loaded onto `device`, its kernels from `eam.ptx`.
    CudaEam(CudaDevice device, KernelModule module, Eam eam) {
        this.device = device;
        this.eam = eam;
        this.t = eam.tables();
        this.density = module.function("eam_density");
        this.embed = module.function("eam_embed");
        this.force = module.function("eam_force");
        this.host = Memory.newSharedArena("eam staging");
        this.lists = new BatchLists(device, "eam", t.cutoff(), t.numbers(), eam, false);
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
        return TableUpload.ints(s, host, tableArena, values);
    }

    /// Energies, forces, max |F_i| and flags of systems `[0, systems)` (atoms `[0, atoms)`) of
    /// `c`, enqueued on `s` after a read-back of the positions (`terms`: the batch's views by row;
    /// `reduce`, `virialSums`: `relax.cu`'s `relax_reduce` and `relax_virial`).
    void evaluate(CudaStream s, RelaxColumns c, int systems, int atoms, ModelTerms terms, CudaFunction reduce, CudaFunction virialSums) {
        if (systems == 0) {
            return;
        }
        int cap = c.systemCapacity();
        lists.update(s, c, systems, atoms, terms);
        fitAtoms();
        Block type = lists.type();
        Block start = lists.start();
        Block nbr = lists.nbr();
        Block shift = lists.shift();
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

    /// The per-atom device arrays for the lists' atom capacity.
    private void fitAtoms() {
        if (lists.atomCapacity() <= atomCapacity) {
            return;
        }
        if (atomArena != null) {
            atomArena.close();
        }
        atomCapacity = lists.atomCapacity();
        long a = Math.max(1, atomCapacity);
        atomArena = device.newArena("eam atoms");
        rho = atomArena.allocate(DType.F64, a);
        fp = atomArena.allocate(DType.F64, a);
        virial = atomArena.allocate(DType.F64, 6 * a);
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
