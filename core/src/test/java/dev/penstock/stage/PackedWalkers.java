package dev.penstock.stage;

import dev.penstock.device.Device;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.Memory;
import dev.penstock.random.Seeds;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/// The toy sample type on a packed device batch: `Walker`s in `PackedColumns` on a `Device`,
/// their account in `PackedRows`, stepped by one batch kernel over the rows — the same
/// trajectories as `Walker.relax` and `Walker.walk` on the per-sample batch. Each walker's
/// `size` is its elements: a per-element "trace" column each step writes as x·(i+1), which
/// `unpack` checks, so an element row that a compaction misplaces fails the run.
///
/// ```
///   ints    START COUNT SUB FLAG DONE STEPS HISTORY ID_LO ID_HI BEFORE_0 … BEFORE_{subs−1}
///   doubles X FORCE
///   element trace (f64), owner (i32)
/// ```
final class PackedWalkers implements BatchEngine<Walker> {
    /// A sub-stage: `Walker.relax(tol, budget)` or `Walker.walk(n, seed)`.
    sealed interface Kind permits Relax, Walk {
        /// What a step of it adds to a walker's history.
        String label();

        /// Whether a walker with `force` after `steps` steps is done with it.
        boolean finished(double force, long steps);
    }

    record Relax(double tol, long budget) implements Kind {
        public String label() {
            return "relax";
        }

        public boolean finished(double force, long steps) {
            return Math.abs(force) < tol || budget >= 0 && steps >= budget;
        }
    }

    record Walk(long n, long seed) implements Kind {
        public String label() {
            return "walk";
        }

        public boolean finished(double force, long steps) {
            return steps >= n;
        }
    }

    static final int SUB = 2;
    static final int FLAG = 3;
    static final int DONE = 4;
    static final int STEPS = 5;
    static final int HISTORY = 6;
    static final int ID_LO = 7;
    static final int ID_HI = 8;
    static final int BEFORE = 9;
    static final int X = 0;
    static final int FORCE = 1;

    /// The factory of a stage whose methods move as `kinds` do (one per method, in order).
    static BatchEngine.Factory<Walker> factory(Device device, List<Kind> kinds) {
        return (stage, sizer, capacity) -> {
            if (stage.methods().size() != kinds.size()) {
                throw new IllegalArgumentException("stage '" + stage.name() + "' has " + stage.methods().size() + " methods, "
                        + kinds.size() + " kinds given");
            }
            return new PackedWalkers(device, stage, kinds, sizer, capacity);
        };
    }

    private final List<Kind> kinds;
    private final List<String> names;
    private final String name;
    private final PackedRows<Walker> rows;
    private final Stream stream;
    private final BlockArena deviceArena;
    private final BlockArena hostArena;
    private PackedColumns live;
    private PackedColumns spare;
    private final PackedColumns exits;
    private final PackedColumns staging;
    private final PackedColumns back;
    private final Block done;
    private final Block exitMap;
    private final Block keepMap;
    private final Block exitMapDevice;
    private final Block keepMapDevice;
    private final String[] forced;
    private long steps;

    private PackedWalkers(Device device, Stage<Walker> stage, List<Kind> kinds, Sizer<Walker> sizer, Capacity capacity) {
        this.kinds = List.copyOf(kinds);
        this.names = stage.methods().stream().map(Method::name).toList();
        this.name = stage.name();
        int samples = (int) Math.min(capacity.limit(0), 1 << 16);
        int elements = (int) Math.min(capacity.limit(1), 1 << 20);
        PackedColumns.Layout layout = new PackedColumns.Layout(BEFORE + kinds.size(), 2,
                List.of(new PackedColumns.Element("trace", DType.F64, 1), new PackedColumns.Element("owner", DType.I32, 1)), 1);
        this.rows = new PackedRows<>(sizer, capacity, samples, elements, w -> w.size);
        this.stream = device.newDrivenStream("walkers");
        this.deviceArena = device.newArena("walkers");
        this.hostArena = Memory.newSharedArena("walkers staging");
        live = PackedColumns.allocate(deviceArena, layout, samples, elements);
        spare = PackedColumns.allocate(deviceArena, layout, samples, elements);
        exits = PackedColumns.allocate(deviceArena, layout, samples, elements);
        exitMapDevice = deviceArena.allocate(DType.I32, 2L * samples + elements);
        keepMapDevice = deviceArena.allocate(DType.I32, 2L * samples + elements);
        staging = PackedColumns.allocate(hostArena, layout, samples, elements);
        back = PackedColumns.allocate(hostArena, layout, samples, elements);
        done = hostArena.allocate(DType.I32, samples);
        exitMap = hostArena.allocate(DType.I32, 2L * samples + elements);
        keepMap = hostArena.allocate(DType.I32, 2L * samples + elements);
        forced = new String[samples];
    }

    @Override
    public boolean fits(Walker w) {
        return rows.fits(w);
    }

    @Override
    public List<Walker> admit(List<Walker> samples, Consumer<Event<Walker>> events) {
        List<Walker> rest = new ArrayList<>();
        List<Walker> failed = new ArrayList<>();
        int base = rows.size();
        int baseElements = rows.elements();
        int k = 0;
        int m = 0;
        for (Walker w : samples) {
            if (!rows.admits(w)) {
                throw new IllegalArgumentException("sample " + w.id + " is larger than stage '" + name + "' can ever hold");
            }
            if (!rows.fits(w)) { // (the account holds the newcomers before w)
                rest.add(w);
                continue;
            }
            if (!Double.isFinite(w.x)) { // the evaluation of newcomers, as Spring does it
                failed.add(w);
                continue;
            }
            w.force = -w.x;
            int sub = 0;
            boolean leaves = false;
            while (kinds.get(sub).finished(w.force, 0)) { // asked on entry, as the per-sample batch does
                boolean last = sub == kinds.size() - 1;
                events.accept(new Event<>(last ? Event.Kind.EXITED : Event.Kind.GRADUATED, w, sub, names.get(sub), 0, null));
                if (last) {
                    leaves = true;
                    break;
                }
                sub++;
            }
            if (leaves) {
                continue;
            }
            pack(w, k, m, base + k, baseElements + m, sub);
            rows.append(w, sub);
            k++;
            m += w.size;
        }
        upload(base, baseElements, k, m);
        for (Walker w : failed) {
            events.accept(new Event<>(Event.Kind.QUARANTINED, w, 0, names.getFirst(), 0, "sample " + w.id + ": non-finite position " + w.x));
        }
        return rest;
    }

    /// Packs `w` into staging row `k`, elements from `m`, as device row `row` with elements from `at`.
    private void pack(Walker w, int k, int m, int row, int at, int sub) {
        for (int c = 0; c < staging.layout().intColumns(); c++) {
            staging.setInt(c, k, 0);
        }
        staging.setInt(PackedColumns.START, k, at);
        staging.setInt(PackedColumns.COUNT, k, w.size);
        staging.setInt(SUB, k, sub);
        staging.setInt(HISTORY, k, w.history.size());
        staging.setInt(ID_LO, k, (int) w.id);
        staging.setInt(ID_HI, k, (int) (w.id >>> 32));
        staging.setDouble(X, k, w.x);
        staging.setDouble(FORCE, k, w.force);
        for (int i = 0; i < w.size; i++) {
            staging.element(0).setDouble(m + i, w.x * (i + 1));
            staging.element(1).setInt(m + i, row);
        }
    }

    /// Staging rows `[0, k)` (elements `[0, m)`) into live rows from `base` (elements from `at`).
    private void upload(int base, int at, int k, int m) {
        if (k == 0) {
            return;
        }
        for (int x = 0; x < k; x++) {
            exitMap.setInt(x, base + x);
        }
        stream.copy(staging.ints(), exits.ints());
        stream.copy(staging.doubles(), exits.doubles());
        stream.copy(exitMap.slice(0, k), exitMapDevice.slice(0, k));
        PackedColumns from = exits;
        PackedColumns to = live;
        stream.launch("walkers put", () -> PackedColumns.moveRows(from, to, exitMapDevice.segment(), k, false));
        for (int c = 0; c < 2; c++) {
            stream.copy(staging.element(c).slice(0, m), live.element(c).slice(at, at + m));
        }
        stream.synchronize();
    }

    @Override
    public void step(Consumer<Event<Walker>> events) {
        int n = rows.size();
        if (n == 0) {
            return;
        }
        PackedColumns c = live;
        stream.launch("walkers step", () -> {
            for (int k = 0; k < n; k++) {
                stepRow(c, k);
            }
        });
        stream.copy(live.ints(DONE, 0, n), done.slice(0, n));
        stream.synchronize();
        steps++;
        int leaving = 0;
        for (int k = 0; k < n; k++) {
            leaving += done.getInt(k);
        }
        if (leaving > 0) {
            leaving = cascade(events, n);
        }
        if (leaving > 0) {
            graduate(events);
        }
    }

    /// One step of row k: its sub-stage's move, the evaluation (force −x), the move after, the
    /// trace of its elements, and whether it is done with its sub-stage.
    private void stepRow(PackedColumns c, int k) {
        int sub = c.getInt(SUB, k);
        Kind kind = kinds.get(sub);
        double x = c.getDouble(X, k);
        long taken = c.getInt(STEPS, k);
        long id = ((long) c.getInt(ID_HI, k) << 32) | (c.getInt(ID_LO, k) & 0xFFFF_FFFFL);
        x += kind instanceof Walk walk ? 0.1 * Seeds.generator(walk.seed(), "walker", id, taken).nextGaussian() : 0.3 * c.getDouble(FORCE, k);
        c.setInt(BEFORE + sub, k, c.getInt(BEFORE + sub, k) + 1);
        c.setDouble(X, k, x);
        if (!Double.isFinite(x)) {
            c.setInt(FLAG, k, 1);
            c.setInt(DONE, k, 1);
            return;
        }
        double force = -x;
        if (kind instanceof Walk) {
            x += 0.01 * force;
        }
        taken++;
        c.setDouble(X, k, x);
        c.setDouble(FORCE, k, force);
        c.setInt(STEPS, k, (int) taken);
        int start = c.getInt(PackedColumns.START, k);
        for (int i = 0; i < c.getInt(PackedColumns.COUNT, k); i++) {
            c.element(0).setDouble(start + i, x * (i + 1));
        }
        c.setInt(DONE, k, kind.finished(force, taken) ? 1 : 0);
    }

    /// Moves every done row on to its next sub-stage (GRADUATED events), each asked on entry
    /// whether it is done there too; returns the rows that leave (their `done` stays set).
    private int cascade(Consumer<Event<Walker>> events, int n) {
        int finished = 0;
        for (int k = 0; k < n; k++) {
            if (done.getInt(k) != 0) {
                exitMap.setInt(finished++, k);
            }
        }
        PackedColumns picked = exits.compact(finished);
        PackedColumns host = back.compact(finished);
        int count = finished;
        stream.copy(exitMap.slice(0, finished), exitMapDevice.slice(0, finished));
        stream.launch("walkers pick", () -> PackedColumns.moveRows(live, picked, exitMapDevice.segment(), count, true));
        stream.copy(picked.ints(), host.ints());
        stream.copy(picked.doubles(), host.doubles());
        stream.synchronize();
        int leaving = 0;
        boolean moved = false;
        for (int x = 0; x < finished; x++) {
            int k = exitMap.getInt(x);
            if (host.getInt(FLAG, x) != 0) {
                leaving++;
                continue;
            }
            int sub = host.getInt(SUB, x);
            double force = host.getDouble(FORCE, x);
            boolean stays = false;
            while (sub < kinds.size() - 1) {
                events.accept(new Event<>(Event.Kind.GRADUATED, rows.sample(k), sub, names.get(sub), host.getInt(STEPS, x), null));
                sub++;
                host.setInt(SUB, x, sub);
                host.setInt(STEPS, x, 0);
                moved = true;
                if (!kinds.get(sub).finished(force, 0)) {
                    stays = true;
                    break;
                }
            }
            rows.status(k, sub);
            if (stays) {
                host.setInt(DONE, x, 0);
                done.setInt(k, 0);
                continue;
            }
            leaving++;
        }
        if (moved) {
            stream.copy(host.ints(), picked.ints());
            stream.copy(host.doubles(), picked.doubles());
            stream.launch("walkers put", () -> PackedColumns.moveRows(picked, live, exitMapDevice.segment(), count, false));
            stream.synchronize();
        }
        return leaving;
    }

    @Override
    public void quarantine(Walker sample, String diagnosis, Consumer<Event<Walker>> events) {
        int row = rows.rowOf(sample);
        if (row < 0) {
            throw new IllegalArgumentException("stage '" + name + "' does not hold sample " + sample.id);
        }
        for (int k = 0; k < rows.size(); k++) {
            done.setInt(k, k == row ? 1 : 0);
        }
        forced[row] = diagnosis;
        graduate(events);
    }

    /// Takes the rows whose `done` is set out: gathered into the exit columns, read back,
    /// unpacked and reported; the others gathered, packed, into the spare columns, which become
    /// the batch.
    private void graduate(Consumer<Event<Walker>> events) {
        int leaving = rows.plan(k -> done.getInt(k) != 0, exitMap.segment(), keepMap.segment());
        String[] why = new String[leaving];
        for (int x = 0; x < leaving; x++) {
            int k = exitMap.getInt(x);
            why[x] = forced[k];
            forced[k] = null;
        }
        int exitElements = rows.exitElements();
        int kept = rows.size() - leaving;
        int keptElements = rows.keptElements();
        PackedColumns out = exits.compact(leaving);
        PackedColumns from = live;
        PackedColumns to = spare;
        stream.copy(exitMap.slice(0, 2L * leaving + exitElements), exitMapDevice.slice(0, 2L * leaving + exitElements));
        stream.launch("walkers gather out", () -> PackedColumns.gatherRows(from, out, exitMapDevice.segment(), leaving, 0, leaving));
        if (kept > 0) {
            stream.copy(keepMap.slice(0, 2L * kept + keptElements), keepMapDevice.slice(0, 2L * kept + keptElements));
            stream.launch("walkers gather kept", () -> PackedColumns.gatherRows(from, to, keepMapDevice.segment(), kept, 0, kept));
        }
        PackedColumns host = back.compact(leaving);
        stream.copy(out.ints(), host.ints());
        stream.copy(out.doubles(), host.doubles());
        stream.copy(out.element(0).slice(0, exitElements), host.element(0).slice(0, exitElements));
        stream.synchronize();
        rows.commit();
        live = to;
        spare = from;
        for (int x = 0; x < leaving; x++) {
            Walker w = rows.leaver(x);
            unpack(w, host, x);
            int sub = host.getInt(SUB, x);
            String diagnosis = why[x] != null ? why[x] : host.getInt(FLAG, x) != 0 ? "sample " + w.id + ": non-finite position " + w.x : null;
            events.accept(new Event<>(diagnosis == null ? Event.Kind.EXITED : Event.Kind.QUARANTINED, w, sub, names.get(sub),
                    host.getInt(STEPS, x), diagnosis));
        }
        rows.releaseLeavers();
    }

    /// Row x of host columns `c` back into `w`: x, force, history; its elements checked.
    private void unpack(Walker w, PackedColumns c, int x) {
        w.x = c.getDouble(X, x);
        w.force = c.getDouble(FORCE, x);
        int start = c.getInt(PackedColumns.START, x);
        if (c.getInt(PackedColumns.COUNT, x) != w.size) {
            throw new IllegalStateException("sample " + w.id + ": " + c.getInt(PackedColumns.COUNT, x) + " elements packed, it has " + w.size);
        }
        for (int i = 0; i < w.size && Double.isFinite(w.x); i++) {
            double trace = c.element(0).getDouble(start + i);
            if (Double.doubleToLongBits(trace) != Double.doubleToLongBits(w.x * (i + 1))) {
                throw new IllegalStateException("sample " + w.id + ": element " + i + " holds " + trace + ", not " + w.x * (i + 1)
                        + " (an element row moved to the wrong place)");
            }
        }
        int history = c.getInt(HISTORY, x);
        w.history.subList(history, w.history.size()).clear();
        for (int sub = 0; sub < kinds.size(); sub++) {
            for (int b = 0; b < c.getInt(BEFORE + sub, x); b++) {
                w.history.add(kinds.get(sub).label());
            }
        }
    }

    @Override
    public List<Walker> samples() {
        int n = rows.size();
        if (n > 0) {
            for (int k = 0; k < n; k++) {
                exitMap.setInt(k, k);
            }
            PackedColumns picked = exits.compact(n);
            PackedColumns host = back.compact(n);
            int e = rows.elements();
            stream.copy(exitMap.slice(0, n), exitMapDevice.slice(0, n));
            stream.launch("walkers pick", () -> PackedColumns.moveRows(live, picked, exitMapDevice.segment(), n, true));
            stream.copy(picked.ints(), host.ints());
            stream.copy(picked.doubles(), host.doubles());
            stream.copy(live.element(0).slice(0, e), host.element(0).slice(0, e));
            stream.synchronize();
            for (int k = 0; k < n; k++) {
                unpack(rows.sample(k), host, k);
            }
        }
        return rows.samples();
    }

    /// Each walker with its sub-stage; the motion's bytes: steps, then the befores of every sub-stage.
    @Override
    public List<StageBatch.Held<Walker>> save() throws IOException {
        List<Walker> now = samples();
        PackedColumns host = now.isEmpty() ? null : back.compact(now.size());
        List<StageBatch.Held<Walker>> out = new ArrayList<>();
        for (int k = 0; k < now.size(); k++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(bytes);
            o.writeInt(host.getInt(STEPS, k));
            o.writeInt(host.getInt(HISTORY, k));
            for (int sub = 0; sub < kinds.size(); sub++) {
                o.writeInt(host.getInt(BEFORE + sub, k));
            }
            o.flush();
            out.add(new StageBatch.Held<>(now.get(k), rows.status(k), bytes.toByteArray(), new byte[0]));
        }
        return out;
    }

    @Override
    public void restore(StageBatch.Held<Walker> held) throws IOException {
        Walker w = held.sample();
        if (!rows.fits(w)) {
            throw new IllegalStateException("restoring sample " + w.id + " into stage '" + name + "': it does not fit");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(held.motion()));
        int base = rows.size();
        int at = rows.elements();
        pack(w, 0, 0, base, at, held.status());
        staging.setInt(STEPS, 0, in.readInt());
        staging.setInt(HISTORY, 0, in.readInt());
        for (int sub = 0; sub < kinds.size(); sub++) {
            staging.setInt(BEFORE + sub, 0, in.readInt());
        }
        rows.append(w, held.status());
        upload(base, at, 1, w.size);
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

    @Override
    public void close() {
        deviceArena.close();
        hostArena.close();
    }
}
