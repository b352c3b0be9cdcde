package dev.penstock.atoms.device;

import dev.penstock.atoms.potential.Model;
import dev.penstock.device.Crew;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Stream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// A `Model` — EAM, Stillinger–Weber, Tersoff, or one of a user's own — as a device stage's
/// shared evaluation on kernels that run it (`RelaxKernels.runs`: the CPU's run any): every step, each
/// system of the packed batch is computed by the model from its rows of the `pos` column, and its
/// forces, energy, max |F_i| and virial written back to its rows (`evaluate`, on host-readable
/// columns: `CpuRelaxKernels` launches it, the systems split over its threads, each system on
/// one — and a large system's parts (`RowParts`) over all of them, one such system at a time — so
/// the numbers do not depend on the split).
///
/// ```
///   admitted(s)  ─▶ a view of s: its id, atomic numbers, masses, cell (constant while it is in
///                   the batch) and its own positions array, kept by id
///   each step    ─▶ pos rows ─copy─▶ view ─model.compute─▶ force rows, ENERGY, FMAX, VIRIAL
///   left(id)     ─▶ the view dropped, model.forget(id) (its neighbour list)
/// ```
///
/// The model keeps what it keeps per system (its neighbour lists) by id, as on the per-system
/// stages, and saves it in a checkpoint the same way (`Model.save`/`restore`), so a system's
/// numbers are those of the per-system stage bit for bit, before and after a restore. A system
/// the model refuses mid-run (`IllegalStateException`/`IllegalArgumentException`: overlapping
/// atoms) is flagged `FLAG_MODEL` and quarantined with the model's words, the others untouched.
///
/// Threading: `admitted`, `left`, `save`, `restore` on the stage's thread while its stream is
/// idle; `views` on the stream's thread, then `evaluate` on the kernels' threads, disjoint rows
/// at once (different systems: as `Model` allows).
public final class ModelTerms implements BatchTerms {
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;

    private final Model model;
    private final Map<Long, AtomicSystem> views = new ConcurrentHashMap<>();
    private final Map<Long, String> failures = new ConcurrentHashMap<>();
    private volatile long generation; // changed by every admission and departure
    private AtomicSystem[] rowViews = new AtomicSystem[0]; // each row's view, as of `rowsGeneration`
    private long rowsGeneration = -1;
    private boolean[] virialIn = new boolean[0]; // the sub-stages that read the virial every step

    /// Terms of `model`.
    public ModelTerms(Model model) {
        this.model = model;
    }

    @Override
    public Model model() {
        return model;
    }

    @Override
    public String refusal(RelaxKernels kernels, String method, String deviceName) {
        return kernels.runs(model) ? null : "stage '" + method + "' on " + deviceName + ": its kernels do not run " + model
                + "; run it with --device cpu";
    }

    @Override
    public void enqueue(RelaxKernels kernels, Stream stream, RelaxColumns c, int systems, int atoms) {
        kernels.evaluate(stream, c, systems, atoms, this);
    }

    /// Asks the model for the virial of every row in a sub-stage `subs` marks (a barostat's, a
    /// variable-cell relaxation's: `Model.compute(system, crew, true)`); the others as the model
    /// computes by default.
    public void virialIn(boolean[] subs) {
        virialIn = subs.clone();
    }

    @Override
    public void admitted(AtomicSystem s) {
        views.put(s.id(), new AtomicSystem(s.id(), s.positions(), s.masses(), s.numbers(), s.cell()));
        generation++; // one writer: the stage's thread
    }

    @Override
    public void left(long id) {
        views.remove(id);
        failures.remove(id);
        model.forget(id);
        generation++;
    }

    /// Puts each of rows `[0, systems)`'s view in place for `evaluate` (host-readable `ints`
    /// columns of capacity `cap`): looked up by id only after systems came or went, so a steady
    /// batch makes no lookup.
    public void views(MemorySegment ints, long cap, int systems) {
        if (rowViews.length < systems) {
            rowViews = Arrays.copyOf(rowViews, Math.max(systems, 2 * rowViews.length));
        }
        long now = generation;
        if (now == rowsGeneration) {
            return;
        }
        for (int k = 0; k < systems; k++) {
            long id = ((long) ints.getAtIndex(I32, RelaxColumns.ID_HI * cap + k) << 32)
                    | (ints.getAtIndex(I32, RelaxColumns.ID_LO * cap + k) & 0xFFFF_FFFFL);
            AtomicSystem v = views.get(id);
            if (v == null) {
                throw new IllegalStateException("row " + k + " holds system " + id + ", which is not in this batch");
            }
            rowViews[k] = v;
        }
        Arrays.fill(rowViews, systems, rowViews.length, null);
        rowsGeneration = now;
    }

    /// Row `k`'s view (after `views`): its system's id, numbers, masses, cell and positions array.
    public AtomicSystem view(int k) {
        return rowViews[k];
    }

    /// Computes rows `[from, to)` (after `views`): each system's packed positions into its view,
    /// the model, then its forces, `ENERGY`, `FMAX`, `VIRIAL` (NaN: none) and flag (`FLAG_MODEL`
    /// if the model refused it, `FLAG_NON_FINITE` for a non-finite result; an earlier flag stands).
    /// With a `crew` (null: none) the model computes each system's parts on it
    /// (`Model.compute(system, crew)`: the same numbers).
    public void evaluate(MemorySegment pos, MemorySegment force, MemorySegment ints, MemorySegment doubles, long cap, int from, int to,
                         Crew crew) {
        for (int k = from; k < to; k++) {
            AtomicSystem view = rowViews[k];
            int start = ints.getAtIndex(I32, RelaxColumns.START * cap + k);
            int n = view.atoms();
            MemorySegment.copy(pos, F64, 24L * start, view.positions(), 0, 3 * n);
            int sub = ints.getAtIndex(I32, RelaxColumns.SUB * cap + k);
            boolean ok = compute(view, doubles, cap, k, crew, sub < virialIn.length && virialIn[sub]);
            double[] f = view.forces();
            MemorySegment.copy(f, 0, force, F64, 24L * start, 3 * n);
            double max = 0;
            boolean finite = true;
            for (int i = 0; i < n; i++) {
                double f2 = f[3 * i] * f[3 * i] + f[3 * i + 1] * f[3 * i + 1] + f[3 * i + 2] * f[3 * i + 2];
                finite &= f2 <= Double.MAX_VALUE;
                max = Math.max(max, f2);
            }
            double e = view.energy();
            finite &= Math.abs(e) <= Double.MAX_VALUE;
            doubles.setAtIndex(F64, RelaxColumns.ENERGY * cap + k, e);
            doubles.setAtIndex(F64, RelaxColumns.FMAX * cap + k, Math.sqrt(max));
            double[] w = ok ? view.virial() : null;
            for (int x = 0; x < 9; x++) {
                doubles.setAtIndex(F64, (RelaxColumns.VIRIAL + x) * cap + k, w == null ? Double.NaN : w[x]);
            }
            long flag = RelaxColumns.FLAG * cap + k;
            if (ints.getAtIndex(I32, flag) == 0 && (!ok || !finite)) {
                ints.setAtIndex(I32, flag, ok ? RelaxColumns.FLAG_NON_FINITE : RelaxColumns.FLAG_MODEL);
            }
        }
    }

    /// Gives `view` the cell of row `k`'s `CELL` columns where a kernel (a barostat's) has changed
    /// it: its periodic rows compared, a new `Cell` only on a change.
    static void followCell(AtomicSystem view, MemorySegment doubles, long cap, int k) {
        dev.penstock.atoms.system.Cell cell = view.cell();
        boolean same = true;
        for (int d = 0; d < 3 && same; d++) {
            for (int e = 0; e < 3 && cell.periodic(d); e++) {
                same &= doubles.getAtIndex(F64, (RelaxColumns.CELL + 3 * d + e) * cap + k) == cell.vector(d, e);
            }
        }
        if (!same) {
            double[] v = new double[9];
            for (int x = 0; x < 9; x++) {
                v[x] = cell.periodic(x / 3) ? doubles.getAtIndex(F64, (RelaxColumns.CELL + x) * cap + k) : cell.vector(x / 3, x % 3);
            }
            view.cell(dev.penstock.atoms.system.Cell.of(v, cell.pbc()));
        }
    }

    /// Gives row `k`'s view (after `views`) the cell of its `CELL` columns (host-readable `doubles`
    /// of capacity `cap`) where a kernel has changed it; false, the reason kept for `diagnosis`
    /// (`FLAG_MODEL`), if they hold no cell any more (non-finite, flat: a barostat that blew up).
    public boolean followCell(int k, MemorySegment doubles, long cap) {
        AtomicSystem view = rowViews[k];
        try {
            followCell(view, doubles, cap, k);
            return true;
        } catch (IllegalArgumentException e) {
            failures.put(view.id(), "system " + view.id() + ": its cell is no longer one (" + e.getMessage() + "): the barostat or cell "
                    + "relaxation blew up (a longer pdamp, a smaller dt or fmax's step helps)");
            return false;
        }
    }

    /// Whether row `k`'s system (after `views`) is large enough for the model to compute it in
    /// parts (`Model.parts`), which a crew can share out.
    public boolean inParts(int k) {
        return model.parts(rowViews[k].atoms()) > 1;
    }

    /// Computes `view` in row `k`'s cell (its parts on `crew`, if given); false if the model refused
    /// it, or a barostat left it a cell that is none (non-finite, flat: why is kept for the diagnosis).
    private boolean compute(AtomicSystem view, MemorySegment doubles, long cap, int k, Crew crew, boolean virial) {
        if (!followCell(k, doubles, cap)) {
            return false;
        }
        try {
            model.compute(view, crew, virial);
            return true;
        } catch (IllegalStateException | IllegalArgumentException e) {
            failures.put(view.id(), "system " + view.id() + ": the model failed: " + e.getMessage());
            return false;
        }
    }

    @Override
    public byte[] save(long id) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        model.save(id, out);
        out.flush();
        return bytes.toByteArray();
    }

    @Override
    public void restore(AtomicSystem s, byte[] saved) throws IOException {
        if (saved.length > 0) {
            model.restore(views.get(s.id()), new DataInputStream(new ByteArrayInputStream(saved)));
        }
    }

    @Override
    public boolean virial(int sub) {
        return true;
    }

    @Override
    public String diagnosis(long id) {
        String why = failures.get(id);
        return why != null ? why : "system " + id + ": the model failed";
    }
}
