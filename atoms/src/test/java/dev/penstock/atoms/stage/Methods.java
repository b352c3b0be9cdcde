package dev.penstock.atoms.stage;

import dev.penstock.atoms.integrate.Integrator;
import dev.penstock.atoms.integrate.Langevin;
import dev.penstock.atoms.integrate.LangevinReference;
import dev.penstock.atoms.integrate.NveReference;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.optimize.Fire;
import dev.penstock.atoms.optimize.Fire2;
import dev.penstock.atoms.optimize.Optimizer;
import dev.penstock.atoms.optimize.Relaxation;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Method;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/// Stage methods for atomic systems. Every parameter can differ per system: pass a function of
/// the system (e.g. `s -> s.id() % 2 == 0 ? 300 : 600`), or a constant. Each system gets its own
/// optimiser or integrator state when it enters the stage, so its trajectory is the one it
/// would have alone, whatever else shares its batch.
public final class Methods {
    private Methods() {
    }

    /// FIRE in ASE-exact mode until `rule` says converged or the step budget is spent.
    public static Method<AtomicSystem> fire(Convergence rule) {
        return optimizer("fire", () -> Relaxation.of(new Fire()), rule);
    }

    /// FIRE with mass-weighted velocity updates.
    public static Method<AtomicSystem> fireMassWeighted(Convergence rule) {
        return optimizer("fire-mw", () -> Relaxation.of(Fire.massWeighted()), rule);
    }

    /// FIRE 2.0.
    public static Method<AtomicSystem> fire2(Convergence rule) {
        return optimizer("fire2", () -> Relaxation.of(new Fire2()), rule);
    }

    /// Velocity Verlet (NVE) for `steps` steps with time step `dt` (τ) per system.
    public static Method<AtomicSystem> nve(ToDoubleFunction<AtomicSystem> dt, ToLongFunction<AtomicSystem> steps) {
        return integrator("nve", s -> new NveReference(dt.applyAsDouble(s)), steps);
    }

    /// Velocity Verlet with one `dt` and step count for every system (a negative count: no
    /// budget, refused by a pipeline before it runs).
    public static Method<AtomicSystem> nve(double dt, long steps) {
        return integrator("nve", s -> new NveReference(dt), s -> steps, steps >= 0);
    }

    /// Langevin BAOAB (NVT) for `steps` steps: per system dt (τ), kT (eV), friction γ (1/τ); the
    /// noise keyed by (seed, system id, step).
    public static Method<AtomicSystem> langevin(ToDoubleFunction<AtomicSystem> dt, ToDoubleFunction<AtomicSystem> kT,
                                                ToDoubleFunction<AtomicSystem> gamma, long seed, ToLongFunction<AtomicSystem> steps) {
        return integrator("langevin", s -> new LangevinReference(dt.applyAsDouble(s), kT.applyAsDouble(s), gamma.applyAsDouble(s), seed), steps);
    }

    /// Langevin with the same parameters for every system (a negative step count: refused by a
    /// pipeline before it runs).
    public static Method<AtomicSystem> langevin(double dt, double kT, double gamma, long seed, long steps) {
        return integrator("langevin", s -> new LangevinReference(dt, kT, gamma, seed), s -> steps, steps >= 0);
    }

    /// Any integrator, made per system on entry, for a per-system number of steps (a negative
    /// budget for a system fails when it enters).
    public static Method<AtomicSystem> integrator(String name, Function<AtomicSystem, Integrator> make, ToLongFunction<AtomicSystem> steps) {
        return integrator(name, make, steps, true);
    }

    private static Method<AtomicSystem> integrator(String name, Function<AtomicSystem, Integrator> make, ToLongFunction<AtomicSystem> steps,
                                                   boolean terminates) {
        return new Of(name, terminates, s -> {
            long budget = steps.applyAsLong(s);
            if (budget < 0) {
                throw new IllegalArgumentException("stage '" + name + "': system " + s.id() + " has no step budget (" + budget + ")");
            }
            return new Integrating(s, make.apply(s), budget);
        });
    }

    /// Any optimiser, made per system on entry, run until `rule` says converged or its step budget
    /// is spent — ASE's loop: the rule is asked on the current forces before each step. (A
    /// `Convergence` always has a step budget.)
    public static Method<AtomicSystem> optimizer(String name, Supplier<Optimizer> make, Convergence rule) {
        return new Of(name, true, s -> new Relaxing(s, make.get(), rule));
    }

    /// A motion whose state `save` writes and `restore` reads back after its constructor.
    private interface Restorable extends Method.Motion {
        void restore(java.io.DataInput in) throws java.io.IOException;
    }

    /// A method from its name, whether it ends, and how a system's motion is made; `restore`
    /// makes a fresh motion and reads its saved state into it.
    private record Of(String name, boolean terminates, Function<AtomicSystem, Restorable> make) implements Method<AtomicSystem> {
        @Override
        public Motion enter(AtomicSystem s) {
            return make.apply(s);
        }

        @Override
        public Motion restore(AtomicSystem s, java.io.DataInput in) throws java.io.IOException {
            Restorable m = make.apply(s);
            m.restore(in);
            return m;
        }
    }

    /// One system under an integrator, for a budget of steps.
    private static final class Integrating implements Restorable {
        final AtomicSystem s;
        final Integrator integrator;
        final long budget;
        long taken;

        Integrating(AtomicSystem s, Integrator integrator, long budget) {
            this.s = s;
            this.integrator = integrator;
            this.budget = budget;
        }

        @Override
        public void beforeEvaluation() {
            integrator.beforeForces(s);
        }

        @Override
        public void afterEvaluation() {
            integrator.afterForces(s);
            taken++;
        }

        @Override
        public boolean finished() {
            return taken >= budget;
        }

        @Override
        public long steps() {
            return taken;
        }

        @Override
        public void save(java.io.DataOutput out) throws java.io.IOException {
            out.writeLong(taken);
            integrator.save(out);
        }

        @Override
        public void restore(java.io.DataInput in) throws java.io.IOException {
            taken = in.readLong();
            integrator.restore(in);
        }
    }

    /// One system under an optimiser until its convergence rule or step budget says so.
    private static final class Relaxing implements Restorable {
        final AtomicSystem s;
        final Optimizer optimizer;
        final Convergence rule;
        long taken;
        double previous = Double.NaN;

        Relaxing(AtomicSystem s, Optimizer optimizer, Convergence rule) {
            this.s = s;
            this.optimizer = optimizer;
            this.rule = rule;
        }

        @Override
        public void beforeEvaluation() {
            previous = s.energy();
            optimizer.step(s);
        }

        @Override
        public void afterEvaluation() {
            taken++;
        }

        @Override
        public boolean finished() {
            return rule.converged(s.maxForce(), s.energy(), previous) || taken >= rule.maxSteps();
        }

        @Override
        public dev.penstock.stage.Event.Ending ending() {
            return rule.isBudgetOnly() ? dev.penstock.stage.Event.Ending.STEPS_RUN
                    : rule.converged(s.maxForce(), s.energy(), previous) ? dev.penstock.stage.Event.Ending.CONVERGED
                    : dev.penstock.stage.Event.Ending.BUDGET_SPENT;
        }

        @Override
        public long steps() {
            return taken;
        }

        @Override
        public void save(java.io.DataOutput out) throws java.io.IOException {
            out.writeLong(taken);
            out.writeDouble(previous);
            optimizer.save(out);
        }

        @Override
        public void restore(java.io.DataInput in) throws java.io.IOException {
            taken = in.readLong();
            previous = in.readDouble();
            optimizer.restore(in);
        }
    }
}
