package dev.penstock.atoms.device;

import static dev.penstock.atoms.device.RelaxColumns.COUNT;
import static dev.penstock.atoms.device.RelaxColumns.DONE;
import static dev.penstock.atoms.device.RelaxColumns.ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.FLAG;
import static dev.penstock.atoms.device.RelaxColumns.FMAX;
import static dev.penstock.atoms.device.RelaxColumns.FRESH;
import static dev.penstock.atoms.device.RelaxColumns.PREV_ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.START;
import static dev.penstock.atoms.device.RelaxColumns.SUB;
import static dev.penstock.atoms.device.RelaxColumns.TAKEN;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Device;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.Memory;
import dev.penstock.stage.BatchEngine;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import dev.penstock.stage.PackedRows;
import dev.penstock.stage.Sizer;
import dev.penstock.stage.StageBatch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/// A stage's batch of systems packed on a `Device`, under FIRE (ASE-exact, mass-weighted, 2.0),
/// velocity Verlet (NVE) or Langevin BAOAB (NVT), evaluated by pair kernels (Lennard-Jones,
/// Morse, on kernels that sum pairs) or by the model over the packed rows (`ModelTerms`: any
/// model on the CPU's kernels): the `BatchEngine` of a device stage (`DeviceStages`). Its stream is a driven one (`Device.newDrivenStream`): on the CPU
/// the worker that steps the batch runs the kernels itself.
///
/// ```
///   admit:    pack newcomers (host staging RelaxColumns) ──copy──▶ tail rows of the device batch
///   step:     fireStep → evaluate → check               (FIRE)
///             nveBefore → evaluate → nveAfter → check  (NVE)
///             langevinBefore → evaluate → nveAfter → check  (NVT)
///             then done[0…systems) ──copy──▶ host (one sync per step)
///   leaving:  gather(done rows) → exit columns ──copy──▶ host → unpacked into each AtomicSystem
///             gather(kept rows) → spare columns (packed, admission order), swapped in
/// ```
///
/// The batch is core's packed batch: its columns `RelaxColumns` (a `PackedColumns` layout), its
/// host account a `PackedRows` (which system and sub-stage each row holds, the room used, the
/// compaction plans). The per-step path unpacks no system: the host keeps which system each row
/// holds and reads back the `done` column (through views made once per batch shape); systems are unpacked only
/// when they leave, when a hook or a checkpoint asks for them (`samples`, `save`). What a step
/// still allocates is the stream's bookkeeping (a task per launch, an event per `synchronize`);
/// a model evaluated by `ModelTerms` reads each system's view (its positions array), as it must. A newcomer is evaluated
/// by the next step's shared evaluation and asked `finished` then (as on entry: no step taken).
/// A system's trajectory is the one it has alone (`RelaxKernels`).
///
/// Threading: one thread at a time.
///
/// Why one file of this length: the host's account of the batch (`PackedRows`) is changed by
/// admission, graduation, a hook's quarantine and a restore, and must agree with the device
/// columns after each; keeping every operation that moves rows between them in one class keeps
/// that invariant in one place.
public final class PackedStage implements BatchEngine<AtomicSystem> {
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;
    /// How one system left.
    ///
    /// @param system    the system (its state written back)
    /// @param steps     FIRE steps taken
    /// @param converged whether the convergence rule was met
    /// @param diagnosis why it was taken out, or null
    public record Exit(AtomicSystem system, int steps, boolean converged, String diagnosis) {
    }

    private final RelaxKernels kernels;
    private final BatchTerms terms; // what the shared evaluation computes, chosen once
    private Block doneFrom; // the DONE rows of `live` and their host copy, for `doneRows` systems
    private Block doneTo;
    private int doneRows = -1;
    private RelaxColumns doneLive;
    private final List<SubStage> kinds; // one per sub-stage
    private final List<String> names; // the sub-stages' method names
    private final String method; // the stage's name: the sub-stages' names joined by '+'
    private final Sizer<AtomicSystem> sizer;
    private final Capacity capacity;
    private final PackedRows<AtomicSystem> rows; // which system each row holds, its sub-stage (the host's copy of SUB), the room used
    private final Stream stream;
    private final BlockArena deviceArena;
    private final BlockArena hostArena;
    private RelaxColumns live;
    private RelaxColumns spare;
    private RelaxColumns exits;
    private RelaxColumns staging;
    private RelaxColumns readBack;
    private Block done;
    private Block keepMap;
    private Block exitMap;
    private Block keepMapDevice;
    private Block exitMapDevice;
    private final String[] forced; // a hook's diagnosis for a row it quarantines
    private final String[] exitDiagnoses; // graduate's scratch: the leaving rows' forced diagnoses
    private long steps;
    private long atomSteps;
    private Consumer<Exit> exitListener = e -> { };
    private double maxStep = Double.POSITIVE_INFINITY;
    private Device owned;

    /// A batch of up to `maxSystems` systems and `maxAtoms` atoms on `device`, stepped by
    /// `kernels` (which must be `device`'s; the batch closes them), moving its systems under
    /// `model` as `kind` says; room also bounded by `capacity` in `sizer`'s dimensions.
    public PackedStage(Device device, RelaxKernels kernels, Model model, SubStage kind, String method, Sizer<AtomicSystem> sizer,
                       Capacity capacity, int maxSystems, int maxAtoms) {
        this(device, kernels, model, List.of(kind), List.of(method), sizer, capacity, maxSystems, maxAtoms);
    }

    /// As the other constructor, for a fused stage: sub-stage i moves its systems as `kinds[i]`
    /// (named `names[i]`, its method's name); a system that finishes sub-stage i enters i + 1 at
    /// once, asked on entry whether it is finished there too (as `Stage`'s fused sub-stages), and
    /// leaves after the last. Every step runs each occupied sub-stage's kernels on its systems
    /// only (the `SUB` column), around one shared evaluation. A model the kernels do not sum as
    /// pairs (`RelaxKernels.sumsPairs`) is evaluated by itself over the packed rows
    /// (`ModelTerms`), on kernels that can (`RelaxKernels.runs`); other kernels are refused here,
    /// naming the stage.
    public PackedStage(Device device, RelaxKernels kernels, Model model, List<SubStage> kinds, List<String> names, Sizer<AtomicSystem> sizer,
                       Capacity capacity, int maxSystems, int maxAtoms) {
        if (kinds.isEmpty() || kinds.size() != names.size()) {
            kernels.close();
            throw new IllegalArgumentException("a packed stage needs one name per sub-stage and at least one, got " + kinds.size() + " and "
                    + names.size());
        }
        this.kernels = kernels;
        boolean[] virialIn = new boolean[kinds.size()]; // the sub-stages that read the virial every step ask the model for it
        for (int k = virialIn.length - 1; k >= 0; k--) { // (and the one before: a row may enter it after this step's evaluation)
            SubStage kind = kinds.get(k);
            virialIn[k] = kind instanceof SubStage.Barostat || kind instanceof SubStage.CellRelaxation
                    || k + 1 < virialIn.length && (kinds.get(k + 1) instanceof SubStage.Barostat || kinds.get(k + 1) instanceof SubStage.CellRelaxation);
        }
        this.terms = BatchTerms.of(model, kernels, virialIn);
        this.kinds = List.copyOf(kinds);
        this.names = List.copyOf(names);
        this.method = String.join("+", names);
        String unfit = terms.refusal(kernels, method, device.name());
        if (unfit != null) {
            kernels.close();
            throw new IllegalArgumentException(unfit);
        }
        if (!kernels.langevin() && kinds.stream().anyMatch(k -> k instanceof SubStage.Thermostat)) {
            kernels.close();
            throw new IllegalArgumentException("stage '" + method + "' on " + device.name() + ": these kernels have no Langevin step");
        }
        if (!kernels.noseHoover() && kinds.stream().anyMatch(k -> k instanceof SubStage.NoseHoover)) {
            kernels.close();
            throw new IllegalArgumentException("stage '" + method + "' on " + device.name() + ": these kernels have no Nosé–Hoover step");
        }
        if (kinds.stream().anyMatch(k -> k instanceof SubStage.CellRelaxation r && !kernels.cellRelaxation(r, model))) {
            kernels.close();
            throw new IllegalArgumentException("stage '" + method + "' on " + device.name() + ": these kernels have no variable-cell "
                    + "relaxation (fire_cell); run it with --device cpu");
        }
        if (!(kernels.barostat() && kernels.barostat(model)) && kinds.stream().anyMatch(k -> k instanceof SubStage.Barostat)) {
            kernels.close();
            throw new IllegalArgumentException("stage '" + method + "' on " + device.name() + ": these kernels have no barostat (npt, nph)"
                    + (kernels.barostat() ? " under " + model : "") + "; run it with --device cpu");
        }
        this.sizer = sizer;
        this.capacity = capacity;
        this.stream = device.newDrivenStream("relax"); // its worker launches a step and waits for it: on the CPU it runs the step itself
        this.deviceArena = device.newArena("relax batch");
        this.hostArena = Memory.newSharedArena("relax staging");
        try {
            rows = new PackedRows<>(sizer, capacity, maxSystems, maxAtoms, AtomicSystem::atoms);
            live = RelaxColumns.allocate(deviceArena, maxSystems, maxAtoms);
            spare = RelaxColumns.allocate(deviceArena, maxSystems, maxAtoms);
            exits = RelaxColumns.allocate(deviceArena, maxSystems, maxAtoms);
            keepMapDevice = deviceArena.allocate(DType.I32, 2L * maxSystems + maxAtoms);
            exitMapDevice = deviceArena.allocate(DType.I32, 2L * maxSystems + maxAtoms);
            staging = RelaxColumns.allocate(hostArena, maxSystems, maxAtoms);
            readBack = RelaxColumns.allocate(hostArena, maxSystems, maxAtoms);
            done = hostArena.allocate(DType.I32, maxSystems);
            keepMap = hostArena.allocate(DType.I32, 2L * maxSystems + maxAtoms);
            exitMap = hostArena.allocate(DType.I32, 2L * maxSystems + maxAtoms);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        forced = new String[maxSystems];
        exitDiagnoses = new String[maxSystems];
    }

    /// Quarantines a system with an atom that moves more than `maxStepA` Å in one step (as
    /// `NanHook` does on the per-system stages, here checked by the step kernels, so nothing is
    /// read back for it); +∞: no limit.
    public PackedStage maxStep(double maxStepA) {
        if (!(maxStepA > 0)) {
            throw new IllegalArgumentException("option 'maxStep' must be > 0 Å, got " + maxStepA);
        }
        this.maxStep = maxStepA;
        return this;
    }

    /// Calls `listener` for every system that leaves, after its state was written back.
    public PackedStage onExit(Consumer<Exit> listener) {
        this.exitListener = listener;
        return this;
    }

    /// The cutoff of the stage's model, Å.
    public double cutoff() {
        return terms.model().cutoff();
    }

    /// Whether `s` fits into an empty batch.
    public boolean fitsEmpty(AtomicSystem s) {
        return rows.admits(s);
    }

    /// Atoms the batch holds at most.
    public int atomCapacity() {
        return live.atomCapacity();
    }

    @Override
    public boolean fits(AtomicSystem s) {
        return rows.fits(s);
    }

    @Override
    public List<AtomicSystem> admit(List<AtomicSystem> samples, Consumer<Event<AtomicSystem>> events) {
        List<AtomicSystem> rest = new ArrayList<>();
        int base = rows.size(); // the newcomers' rows and atoms follow the held ones
        int baseAtoms = rows.elements();
        for (AtomicSystem s : samples) {
            String refused = CellImages.refusal(s, cutoff());
            if (refused != null) {
                throw new IllegalArgumentException(refused);
            }
            if (!rows.admits(s)) {
                throw new IllegalArgumentException("sample " + s.id() + " is larger than stage '" + method + "' can ever hold ("
                        + capacity.describe(sizer.dimensions()) + "; " + live.atomCapacity() + " atoms on the device)");
            }
            if (!rows.fits(s)) {
                rest.add(s);
                continue;
            }
            String bad = Systems.nonFinite(s);
            if (bad != null) {
                events.accept(new Event<>(Event.Kind.QUARANTINED, s, 0, names.getFirst(), 0, bad));
                exitListener.accept(new Exit(s, 0, false, bad));
                continue;
            }
            int k = rows.size() - base;
            int m = rows.elements() - baseAtoms;
            pack(s, k, m, base + k, baseAtoms + m);
            setStart(k);
            terms.admitted(s);
            rows.append(s, 0);
        }
        upload(base, baseAtoms, rows.size() - base, rows.elements() - baseAtoms);
        return rest;
    }

    /// Packs `s` into staging system row `k` and atom rows from `m`, as device row `row` with its
    /// atoms from `atomRow`; its state as a newcomer.
    private void pack(AtomicSystem s, int k, int m, int row, int atomRow) {
        double[] r = s.positions();
        double[] v = s.velocities();
        double[] f = s.forces();
        int n = s.atoms();
        MemorySegment.copy(s.masses(), 0, staging.mass().segment(), F64, 8L * m, n);
        MemorySegment.copy(r, 0, staging.pos().segment(), F64, 24L * m, 3 * n);
        MemorySegment.copy(v, 0, staging.vel().segment(), F64, 24L * m, 3 * n);
        MemorySegment.copy(f, 0, staging.force().segment(), F64, 24L * m, 3 * n);
        staging.last().segment().asSlice(24L * m, 24L * n).fill((byte) 0);
        for (int i = 0; i < s.atoms(); i++) {
            staging.atomSystem().setInt(m + i, row);
        }
        for (int col = 0; col < RelaxColumns.INT_COLUMNS; col++) {
            staging.setInt(col, k, 0);
        }
        staging.setInt(START, k, atomRow);
        staging.setInt(COUNT, k, s.atoms());
        staging.id(k, s.id());
        staging.setDouble(ENERGY, k, s.energy());
        staging.setDouble(PREV_ENERGY, k, Double.NaN);
        staging.setDouble(FMAX, k, Double.NaN);
        double[] w = s.virial(); // a restored system's (a barostat's next step reads it); a newcomer's is evaluated first
        for (int x = 0; x < 9; x++) {
            staging.setDouble(RelaxColumns.VIRIAL + x, k, w == null ? Double.NaN : w[x]);
        }
        CellImages.pack(s, cutoff(), staging, k);
    }

    /// A newcomer's state: fresh, in sub-stage 0.
    private void setStart(int k) {
        SubStage.enter(kinds.getFirst(), staging, k, 0);
        staging.setInt(FRESH, k, 1);
    }

    /// Copies staging rows `[0, k)` (atoms `[0, m)`) into the live batch's rows from `base` (atoms
    /// from `baseAtoms`), its tail: the rows `rows` took them into.
    private void upload(int base, int baseAtoms, int k, int m) {
        if (k == 0) {
            return;
        }
        // the newcomers' system columns packed on the host (compact: capacity k), copied over in
        // one copy per block and put into their rows by one kernel — not one copy per column
        // (47 small copies each admission: on a GPU, each a transfer of its own)
        RelaxColumns packed = readBack.compact(k);
        long cap = staging.systemCapacity();
        for (int col = 0; col < RelaxColumns.INT_COLUMNS; col++) {
            MemorySegment.copy(staging.ints().segment(), 4L * col * cap, packed.ints().segment(), 4L * col * k, 4L * k);
        }
        for (int col = 0; col < RelaxColumns.DOUBLE_COLUMNS; col++) {
            MemorySegment.copy(staging.doubles().segment(), 8L * col * cap, packed.doubles().segment(), 8L * col * k, 8L * k);
        }
        for (int x = 0; x < k; x++) {
            exitMap.setInt(x, base + x);
        }
        putRows(packed, k);
        stream.copy(staging.pos().slice(0, m), live.pos().slice(baseAtoms, baseAtoms + m));
        stream.copy(staging.vel().slice(0, m), live.vel().slice(baseAtoms, baseAtoms + m));
        stream.copy(staging.force().slice(0, m), live.force().slice(baseAtoms, baseAtoms + m));
        stream.copy(staging.last().slice(0, m), live.last().slice(baseAtoms, baseAtoms + m));
        stream.copy(staging.mass().slice(0, m), live.mass().slice(baseAtoms, baseAtoms + m));
        stream.copy(staging.atomSystem().slice(0, m), live.atomSystem().slice(baseAtoms, baseAtoms + m));
        stream.synchronize(); // the staging columns are written again by the next admission
        rowsChanged();
    }

    /// Tells the kernels the largest system held now (they may leave out what only larger ones
    /// need: the GPU's Verlet lists for a batch of small clusters).
    private void rowsChanged() {
        kernels.largestSystem(rows.largest());
    }

    @Override
    public void step(Consumer<Event<AtomicSystem>> events) {
        int systems = rows.size();
        int atoms = rows.elements();
        if (systems == 0) {
            return;
        }
        int occupied = 0; // a bit per sub-stage with systems (the first 31; beyond, always run)
        for (int k = 0; k < systems; k++) {
            int sub = rows.status(k);
            occupied |= sub < 31 ? 1 << sub : 0;
        }
        for (int sub = 0; sub < kinds.size(); sub++) {
            if (sub < 31 && (occupied & (1 << sub)) == 0) {
                continue;
            }
            kinds.get(sub).before(kernels, stream, live, systems, atoms, maxStep * maxStep, sub);
        }
        terms.enqueue(kernels, stream, live, systems, atoms);
        for (int sub = 0; sub < kinds.size(); sub++) {
            if (sub < 31 && (occupied & (1 << sub)) == 0) {
                continue;
            }
            kinds.get(sub).after(kernels, stream, live, systems, atoms, sub);
        }
        if (doneRows != systems || doneLive != live) { // the step's read-back views, made again only when the batch changed
            doneFrom = live.ints(DONE, 0, systems);
            doneTo = done.slice(0, systems);
            doneRows = systems;
            doneLive = live;
        }
        stream.copy(doneFrom, doneTo);
        stream.synchronize();
        steps++;
        atomSteps += atoms;
        int leaving = 0;
        for (int k = 0; k < systems; k++) {
            leaving += done.getInt(k);
        }
        if (leaving > 0 && kinds.size() > 1) {
            leaving = cascade(events);
        }
        if (leaving > 0) {
            graduate(events, leaving);
        }
    }

    /// Moves every row that finished a sub-stage other than the last into the next (GRADUATED
    /// events in row order, each asked on entry whether it is finished there too), writing their
    /// new state to the device; returns the rows that leave (finished the last sub-stage, or
    /// flagged), whose `done` stays set.
    private int cascade(Consumer<Event<AtomicSystem>> events) {
        // only the finished rows' system columns come back, packed at the start of the exit
        // columns (a GPU batch of 2^18 rows holding a few thousand systems read back all 83 MB of
        // them whenever one finished a sub-stage)
        int finished = 0;
        for (int k = 0; k < rows.size(); k++) {
            if (done.getInt(k) != 0) {
                exitMap.setInt(finished++, k);
            }
        }
        RelaxColumns back = pickRows(finished);
        stream.synchronize();
        int last = kinds.size() - 1;
        int leaving = 0;
        boolean moved = false;
        for (int x = 0; x < finished; x++) {
            int k = exitMap.getInt(x);
            int sub = back.getInt(SUB, x);
            if (back.getInt(FLAG, x) == 0) {
                double fmax = back.getDouble(FMAX, x);
                double energy = back.getDouble(ENERGY, x);
                boolean stays = false;
                double previous = back.getDouble(PREV_ENERGY, x);
                while (sub < last) {
                    events.accept(new Event<>(Event.Kind.GRADUATED, rows.sample(k), sub, names.get(sub), back.getInt(TAKEN, x), null,
                            ending(sub, fmax, energy, previous)));
                    previous = Double.NaN; // a sub-stage finished on entry: judged as `finishedOnEntry` judges it
                    SubStage.enter(kinds.get(++sub), back, x, sub);
                    moved = true;
                    if (!kinds.get(sub).finishedOnEntry(fmax, energy)) {
                        stays = true;
                        break;
                    }
                }
                rows.status(k, sub);
                if (stays) {
                    done.setInt(k, 0);
                    continue;
                }
                back.setInt(DONE, x, 1); // finished the last sub-stage (perhaps on entry): it leaves
            }
            leaving++;
        }
        if (moved) {
            putRows(back, finished);
            stream.synchronize(); // the exit map and columns are written again by the graduation
        }
        return leaving;
    }

    /// Enqueues the read-back of the per-system columns of the `n` rows listed in `exitMap`,
    /// packed at the start of the exit columns and of the host's `readBack` (capacity n: a
    /// GPU batch may have 2^18 rows for a few thousand systems); returns those host columns,
    /// row x holding listed row x once the stream is synchronized.
    private RelaxColumns pickRows(int n) {
        RelaxColumns picked = exits.compact(n);
        RelaxColumns back = readBack.compact(n);
        stream.copy(exitMap.slice(0, n), exitMapDevice.slice(0, n));
        kernels.pickSystems(stream, live, picked, exitMapDevice, n);
        stream.copy(picked.ints(), back.ints());
        stream.copy(picked.doubles(), back.doubles());
        return back;
    }

    /// Enqueues the write of host columns `host` (capacity n) into the `n` rows listed in
    /// `exitMap`: one copy per block and one `putSystems`, through the exit columns.
    private void putRows(RelaxColumns host, int n) {
        RelaxColumns landing = exits.compact(n);
        stream.copy(host.ints(), landing.ints());
        stream.copy(host.doubles(), landing.doubles());
        stream.copy(exitMap.slice(0, n), exitMapDevice.slice(0, n));
        kernels.putSystems(stream, landing, live, exitMapDevice, n);
    }

    @Override
    public void quarantine(AtomicSystem sample, String diagnosis, Consumer<Event<AtomicSystem>> events) {
        for (int k = 0; k < rows.size(); k++) {
            done.setInt(k, 0);
        }
        int row = rows.rowOf(sample);
        if (row < 0) {
            throw new IllegalArgumentException("stage '" + method + "' does not hold sample " + sample.id());
        }
        done.setInt(row, 1);
        forced[row] = diagnosis;
        graduate(events, 1);
    }

    /// Takes the `leaving` rows whose `done` is set out of the batch: gathered and read back,
    /// unpacked into their systems, reported; the others gathered, packed, into the spare
    /// columns, which become the batch.
    private void graduate(Consumer<Event<AtomicSystem>> events, int leaving) {
        int systems = rows.size();
        if (rows.plan(k -> done.getInt(k) != 0, exitMap.segment(), keepMap.segment()) != leaving) {
            throw new IllegalStateException("stage '" + method + "': " + leaving + " rows leaving, but the done column marks others");
        }
        for (int x = 0; x < leaving; x++) {
            int k = exitMap.getInt(x);
            exitDiagnoses[x] = forced[k];
            forced[k] = null;
        }
        int exitAtoms = rows.exitElements();
        int keptAtoms = rows.keptElements();
        int keptSystems = systems - leaving;
        stream.copy(exitMap.slice(0, 2L * leaving + exitAtoms), exitMapDevice.slice(0, 2L * leaving + exitAtoms));
        // the leavers' system columns gathered packed at the start of `exits` (capacity
        // `leaving`), so their read-back is one copy of those rows per block, not of the
        // batch's whole capacity (2,000 system rows of 47 columns at a 2,000-atom budget)
        RelaxColumns exitRows = exits.compact(leaving);
        kernels.gather(stream, live, exitRows, exitMapDevice, leaving, exitAtoms);
        if (keptSystems > 0) {
            stream.copy(keepMap.slice(0, 2L * keptSystems + keptAtoms), keepMapDevice.slice(0, 2L * keptSystems + keptAtoms));
            kernels.gather(stream, live, spare, keepMapDevice, keptSystems, keptAtoms);
        }
        RelaxColumns back = readBack.compact(leaving);
        readBack(exitRows, back, exitAtoms);
        rows.commit();
        RelaxColumns t = live;
        live = spare;
        spare = t;
        rowsChanged();
        for (int x = 0; x < leaving; x++) {
            AtomicSystem s = rows.leaver(x);
            unpack(s, x, back);
            int taken = back.getInt(TAKEN, x);
            int sub = back.getInt(SUB, x);
            double energy = back.getDouble(ENERGY, x);
            double fmax = back.getDouble(FMAX, x);
            String diagnosis = exitDiagnoses[x] != null ? exitDiagnoses[x] : switch (back.getInt(FLAG, x)) {
                case 0 -> null;
                case RelaxColumns.FLAG_OVERLAP, RelaxColumns.FLAG_MODEL -> terms.diagnosis(s.id());
                case RelaxColumns.FLAG_NO_VIRIAL -> "system " + s.id() + ": the model computed no virial, which stage '" + names.get(sub)
                        + "' needs for the pressure";
                case RelaxColumns.FLAG_RUNAWAY -> "system " + s.id() + ": an atom moved more than " + maxStep + " Å in step " + (taken + 1)
                        + " of stage '" + names.get(sub) + "' (is the time step too large?)";
                default -> "system " + s.id() + ": non-finite energy or force (energy " + energy + ", max |F| " + fmax + ")";
            };
            Event.Ending ending = ending(sub, fmax, energy, back.getDouble(PREV_ENERGY, x));
            boolean converged = diagnosis == null && ending == Event.Ending.CONVERGED;
            terms.left(s.id());
            events.accept(diagnosis == null ? new Event<>(Event.Kind.EXITED, s, sub, names.get(sub), taken, null, ending)
                    : new Event<>(Event.Kind.QUARANTINED, s, sub, names.get(sub), taken, diagnosis));
            exitListener.accept(new Exit(s, taken, converged, diagnosis));
        }
        rows.releaseLeavers();
    }

    /// How sub-stage `sub` ended for a system that finished it with these max |F|, energy and
    /// energy before its last step: met its rule, spent its budget, or ran its steps (dynamics and
    /// budget-only relaxations).
    private Event.Ending ending(int sub, double fmax, double energy, double previous) {
        if (!(kinds.get(sub) instanceof SubStage.Optimising o) || o.rule().isBudgetOnly()) {
            return Event.Ending.STEPS_RUN;
        }
        return o.rule().converged(fmax, energy, previous) ? Event.Ending.CONVERGED : Event.Ending.BUDGET_SPENT;
    }

    /// Copies the per-system columns and the first `atomRows` atom rows of `from` to host
    /// columns `to` of the same system capacity.
    private void readBack(RelaxColumns from, RelaxColumns to, int atomRows) {
        stream.copy(from.ints(), to.ints());
        stream.copy(from.doubles(), to.doubles());
        readAtoms(from, to, atomRows);
        stream.synchronize();
    }

    /// Enqueues the copy of the positions, velocities, forces and last steps of the first
    /// `atomRows` atoms of `from` to `to`.
    private void readAtoms(RelaxColumns from, RelaxColumns to, int atomRows) {
        stream.copy(from.pos().slice(0, atomRows), to.pos().slice(0, atomRows));
        stream.copy(from.vel().slice(0, atomRows), to.vel().slice(0, atomRows));
        stream.copy(from.force().slice(0, atomRows), to.force().slice(0, atomRows));
        stream.copy(from.last().slice(0, atomRows), to.last().slice(0, atomRows));
    }

    /// Writes row `x` of host columns `c` back into `s`: positions, FIRE velocities, forces,
    /// energy, and the virial where the terms give one (as the model sets it on the per-system
    /// stages: null when it computed none).
    private void unpack(AtomicSystem s, int x, RelaxColumns c) {
        int start = c.getInt(START, x);
        double[] r = s.positions();
        double[] v = s.velocities();
        double[] f = s.forces();
        int n = s.atoms();
        MemorySegment.copy(c.pos().segment(), F64, 24L * start, r, 0, 3 * n);
        MemorySegment.copy(c.vel().segment(), F64, 24L * start, v, 0, 3 * n);
        MemorySegment.copy(c.force().segment(), F64, 24L * start, f, 0, 3 * n);
        s.energy(c.getDouble(ENERGY, x));
        try {
            ModelTerms.followCell(s, c.doubles().segment(), c.systemCapacity(), x); // a barostat's cell
        } catch (IllegalArgumentException e) {
            // a cell that is none (a barostat blew up: the system is flagged and quarantined): it keeps the last good one
        }
        kinds.get(c.getInt(SUB, x)).describe(s, c, x);
        if (terms.virial(c.getInt(SUB, x))) { // (a pair model leaves the virial as it came, as on the per-system stages)
            double[] w = new double[9];
            for (int e = 0; e < 9; e++) {
                w[e] = c.getDouble(RelaxColumns.VIRIAL + e, x);
            }
            s.virial(Double.isNaN(w[0]) ? null : w);
        }
    }

    @Override
    public List<AtomicSystem> samples() {
        int systems = rows.size();
        if (systems > 0) {
            // the held rows' system columns packed (compact: a GPU batch's capacity may be 2^18
            // rows for a few thousand systems), their atoms as they lie
            for (int k = 0; k < systems; k++) {
                exitMap.setInt(k, k);
            }
            RelaxColumns heldBack = pickRows(systems);
            readAtoms(live, readBack, rows.elements());
            stream.synchronize();
            for (int k = 0; k < systems; k++) {
                AtomicSystem s = rows.sample(k);
                unpack(s, k, heldBack);
                s.held(names.get(heldBack.getInt(SUB, k)), heldBack.getInt(TAKEN, k)); // the steps whose state it holds
            }
        }
        return rows.samples();
    }

    /// As `Methods`' motions save it — relaxing: taken, the energy before the last step, then
    /// `Fire.save` (dt, α, N, started); integrating: taken (velocity Verlet keeps nothing else;
    /// Langevin its next step's index, the same number) — so a checkpoint reads the same either way.
    @Override
    public List<StageBatch.Held<AtomicSystem>> save() throws IOException {
        List<AtomicSystem> now = samples();
        List<StageBatch.Held<AtomicSystem>> out = new ArrayList<>(now.size());
        RelaxColumns heldBack = now.isEmpty() ? null : readBack.compact(now.size()); // what samples() read back
        for (int k = 0; k < now.size(); k++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(bytes);
            o.writeLong(heldBack.getInt(TAKEN, k));
            int sub = heldBack.getInt(SUB, k);
            kinds.get(sub).save(o, heldBack, k);
            o.flush();
            out.add(new StageBatch.Held<>(now.get(k), sub, bytes.toByteArray(), terms.save(now.get(k).id())));
        }
        return out;
    }

    /// Takes back a system `save` gave. One that had taken no step yet is a newcomer again (its
    /// evaluation and entry check run with the next step, as they would have).
    @Override
    public void restore(StageBatch.Held<AtomicSystem> held) throws IOException {
        AtomicSystem s = held.sample();
        if (held.status() < 0 || held.status() >= kinds.size()) {
            throw new IllegalStateException("restoring sample " + s.id() + ": sub-stage " + held.status() + " of stage '" + method
                    + "' does not exist");
        }
        if (!fits(s)) {
            throw new IllegalStateException("restoring sample " + s.id() + " into stage '" + method + "': it does not fit ("
                    + capacity.describe(sizer.dimensions()) + ")");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(held.motion()));
        long taken = in.readLong();
        int sub = held.status();
        int base = rows.size();
        int baseAtoms = rows.elements();
        pack(s, 0, 0, base, baseAtoms);
        SubStage.enter(kinds.get(sub), staging, 0, sub);
        staging.setInt(TAKEN, 0, Math.toIntExact(taken));
        boolean started;
        try {
            started = kinds.get(sub).restore(in, staging, 0, taken);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("restoring sample " + s.id() + " into stage '" + method + "': " + e.getMessage(), e);
        }
        // (one that had taken no step yet is evaluated and asked on entry again: the same forces, the same answer)
        staging.setInt(FRESH, 0, taken == 0 && !started ? 1 : 0);
        rows.append(s, sub);
        terms.admitted(s);
        terms.restore(s, held.evaluation());
        upload(base, baseAtoms, 1, s.atoms());
    }

    @Override
    public int size() {
        return rows.size();
    }

    @Override
    public long used(int d) {
        return rows.used(d);
    }

    @Override
    public int[] statuses() {
        return rows.statuses();
    }

    @Override
    public long evaluations() {
        return steps;
    }

    @Override
    public long steps() {
        return steps;
    }

    /// Atoms evaluated, summed over the steps.
    public long atomSteps() {
        return atomSteps;
    }

    /// Closes `device` (this batch's, made for it alone: a Flink task's) when the batch closes.
    /// Returns this.
    public PackedStage owning(Device device) {
        this.owned = device;
        return this;
    }

    /// Frees the batch's device and host memory and the kernels' threads (and closes the device
    /// it owns, if any).
    @Override
    public void close() {
        kernels.close();
        deviceArena.close();
        hostArena.close();
        if (owned != null) {
            owned.close();
        }
    }
}
