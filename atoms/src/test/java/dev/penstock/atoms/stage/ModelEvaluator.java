package dev.penstock.atoms.stage;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Evaluator;
import java.util.List;

/// A model as a stage's shared evaluation: energies and forces of every system of the batch.
/// A system the model rejects (overlapping atoms) or whose energy or forces come out
/// non-finite is reported with a diagnosis naming it — the pipeline quarantines it and the
/// other systems go on, untouched.
public final class ModelEvaluator implements Evaluator<AtomicSystem> {
    private final Model model;

    /// Evaluates with `model`.
    public ModelEvaluator(Model model) {
        this.model = model;
    }

    @Override
    public void evaluate(List<AtomicSystem> samples, Failures<AtomicSystem> failures) {
        for (AtomicSystem s : samples) {
            String bad = nonFinite(s);
            if (bad != null) {
                failures.fail(s, bad);
                continue;
            }
            try {
                model.compute(s);
            } catch (IllegalStateException | IllegalArgumentException e) {
                failures.fail(s, "system " + s.id() + ": the model failed: " + e.getMessage());
                continue;
            }
            if (!Double.isFinite(s.energy())) {
                failures.fail(s, "system " + s.id() + ": non-finite energy " + s.energy());
                continue;
            }
            double[] f = s.forces();
            for (int i = 0; i < f.length; i++) {
                if (!Double.isFinite(f[i])) {
                    failures.fail(s, "system " + s.id() + ": non-finite force on atom " + i / 3 + " (" + "xyz".charAt(i % 3) + " = "
                            + f[i] + ")");
                    break;
                }
            }
        }
    }

    /// Why `s` cannot be evaluated before anything runs (`Systems.nonFinite`: the device stages
    /// say the same at admission).
    public static String nonFinite(AtomicSystem s) {
        return Systems.nonFinite(s);
    }

    @Override
    public String refusal(AtomicSystem sample) {
        return model.refusal(sample);
    }

    @Override
    public void forget(AtomicSystem sample) {
        model.forget(sample.id());
    }

    @Override
    public void save(AtomicSystem sample, java.io.DataOutput out) throws java.io.IOException {
        model.save(sample.id(), out);
    }

    @Override
    public void restore(AtomicSystem sample, java.io.DataInput in) throws java.io.IOException {
        model.restore(sample, in);
    }

    /// The model.
    public Model model() {
        return model;
    }
}
