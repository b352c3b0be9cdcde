package dev.penstock.atoms.stage;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// NaN and runaway detection as a hook: every `every` steps, a system with a non-finite
/// position, velocity, force or energy, or with an atom that moved more than `maxStepA` Å per
/// step since the last check (a time step far too large: atoms flung 10^7 Å apart "finish" with
/// zero forces), is quarantined with a diagnosis naming it, the atom and the step; the others go
/// on untouched. (`ModelEvaluator` already refuses non-finite positions and forces at every
/// evaluation; this hook also catches what a method or a model without those checks lets through,
/// e.g. a velocity gone NaN.) Positions are unwrapped, so a periodic boundary is no jump.
///
/// Threading: stages call it from their own workers; the last positions are kept per system in
/// a concurrent map and dropped when the system leaves a stage.
public final class NanHook implements Hook<AtomicSystem> {
    private final int every;
    private final double maxStepA;
    private final Map<Long, Last> last = new ConcurrentHashMap<>();

    /// A system's positions at its last check: one array per system, overwritten in place at
    /// every check (no allocation per step), dropped when the system leaves.
    private static final class Last {
        long step;
        int stage;
        final double[] positions;

        Last(int atoms) {
            positions = new double[3 * atoms];
        }
    }

    /// A check every `every` steps, for non-finite values only.
    public NanHook(int every) {
        this(every, Double.POSITIVE_INFINITY);
    }

    /// A check every `every` steps for non-finite values and for atoms moving more than
    /// `maxStepA` Å per step.
    public NanHook(int every, double maxStepA) {
        if (every < 1) {
            throw new IllegalArgumentException("NaN hook: 'every' must be at least 1, got " + every);
        }
        if (!(maxStepA > 0)) {
            throw new IllegalArgumentException("NaN hook: 'maxStepA' must be > 0 Å, got " + maxStepA);
        }
        this.every = every;
        this.maxStepA = maxStepA;
    }

    @Override
    public int every() {
        return every;
    }

    @Override
    public List<Verdict<AtomicSystem>> check(int stage, long step, List<AtomicSystem> systems) {
        List<Verdict<AtomicSystem>> out = new ArrayList<>();
        for (AtomicSystem s : systems) {
            String bad = firstNonFinite(s);
            if (bad == null && maxStepA < Double.POSITIVE_INFINITY) {
                bad = runaway(stage, step, s);
            }
            if (bad != null) {
                out.add(new Verdict<>(s, "system " + s.id() + ": " + bad + " at step " + step + " of stage " + stage));
            }
        }
        return out;
    }

    @Override
    public void onEvent(int stage, Event<AtomicSystem> e) {
        if (e.left()) {
            last.remove(e.sample().id());
        }
    }

    /// The first atom that moved more than `maxStepA` per step since this system's last check.
    private String runaway(int stage, long step, AtomicSystem s) {
        double[] r = s.positions();
        Last before = last.get(s.id());
        boolean comparable = before != null && before.stage == stage && step > before.step && before.positions.length == r.length;
        if (before == null || before.positions.length != r.length) {
            before = new Last(s.atoms());
            last.put(s.id(), before);
        }
        String moved = comparable ? firstRunaway(step - before.step, before.positions, r) : null;
        System.arraycopy(r, 0, before.positions, 0, r.length);
        before.step = step;
        before.stage = stage;
        return moved;
    }

    private String firstRunaway(long steps, double[] p, double[] r) {
        double limit = maxStepA * steps;
        for (int i = 0; i < r.length; i += 3) {
            double dx = r[i] - p[i];
            double dy = r[i + 1] - p[i + 1];
            double dz = r[i + 2] - p[i + 2];
            double d2 = dx * dx + dy * dy + dz * dz;
            if (d2 > limit * limit) {
                return String.format(java.util.Locale.ROOT, "atom %d moved %.3g Å in %d step(s) (more than %.3g Å per step: "
                        + "is the time step too large?)", i / 3, Math.sqrt(d2), steps, maxStepA);
            }
        }
        return null;
    }

    private static String firstNonFinite(AtomicSystem s) {
        String[] names = {"position", "velocity", "force"};
        double[][] arrays = {s.positions(), s.velocities(), s.forces()};
        for (int a = 0; a < arrays.length; a++) {
            double[] x = arrays[a];
            for (int i = 0; i < x.length; i++) {
                if (!Double.isFinite(x[i])) {
                    return "non-finite " + names[a] + " of atom " + i / 3 + " (" + "xyz".charAt(i % 3) + " = " + x[i] + ")";
                }
            }
        }
        return Double.isNaN(s.energy()) || Double.isInfinite(s.energy()) ? "non-finite energy " + s.energy() : null;
    }
}
