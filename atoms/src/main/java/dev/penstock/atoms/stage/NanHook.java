package dev.penstock.atoms.stage;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Hook;
import java.util.ArrayList;
import java.util.List;

/// NaN detection as a hook: every `every` steps, a system with a non-finite position, velocity,
/// force or energy is quarantined with a diagnosis naming it, the atom and the step; the others
/// go on untouched. (`ModelEvaluator` already refuses non-finite positions and forces at every
/// evaluation; this hook also catches what a method or a model without those checks lets through,
/// e.g. a velocity gone NaN.)
public final class NanHook implements Hook<AtomicSystem> {
    private final int every;

    /// A check every `every` steps.
    public NanHook(int every) {
        if (every < 1) {
            throw new IllegalArgumentException("NaN hook: 'every' must be at least 1, got " + every);
        }
        this.every = every;
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
            if (bad != null) {
                out.add(new Verdict<>(s, "system " + s.id() + ": " + bad + " at step " + step + " of stage " + stage));
            }
        }
        return out;
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
