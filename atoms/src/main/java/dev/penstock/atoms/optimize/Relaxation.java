package dev.penstock.atoms.optimize;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;

/// The loop every optimiser shares (ASE's `Optimizer.irun`): evaluate, check convergence,
/// step, repeat — with the step budget, and a diagnosis naming the system on non-finite forces.
final class Relaxation {
    private Relaxation() {
    }

    /// One optimiser step from the forces in the system.
    interface Stepper {
        void step(AtomicSystem s);
    }

    static Fire.Result run(Stepper stepper, AtomicSystem s, Model model, Convergence rule) {
        int taken = 0;
        model.compute(s);
        double previous = Double.NaN;
        while (true) {
            double fm = s.maxForce();
            if (!Double.isFinite(fm)) {
                throw new IllegalStateException("system " + s.id() + ": non-finite forces at step " + taken);
            }
            if (rule.converged(fm, s.energy(), previous)) {
                return new Fire.Result(taken, true, s.energy(), fm);
            }
            if (taken == rule.maxSteps()) {
                return new Fire.Result(taken, false, s.energy(), fm);
            }
            previous = s.energy();
            stepper.step(s);
            taken++;
            model.compute(s);
        }
    }
}
