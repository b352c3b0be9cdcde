package dev.penstock.atoms.integrate;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;

/// A time integrator split around its force evaluation, so that a stage can evaluate the
/// forces of a whole batch at once between the two halves:
/// `beforeForces(s); model.compute(s); afterForces(s)` is one step. Each instance belongs to
/// one system and carries that system's parameters (dt, temperature, friction, seed).
public interface Integrator {
    /// The part of a step before the new forces (kicks and drifts).
    void beforeForces(AtomicSystem s);

    /// The part after them (the final half kick).
    void afterForces(AtomicSystem s);

    /// Writes the integrator's state (a stateless one writes nothing).
    default void save(java.io.DataOutput out) throws java.io.IOException {
    }

    /// Reads back what `save` wrote.
    default void restore(java.io.DataInput in) throws java.io.IOException {
    }

    /// One whole step of `s` under `model` (forces must be current).
    default void step(AtomicSystem s, Model model) {
        beforeForces(s);
        model.compute(s);
        afterForces(s);
    }
}
