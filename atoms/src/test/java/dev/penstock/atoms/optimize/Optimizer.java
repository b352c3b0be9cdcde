package dev.penstock.atoms.optimize;

import dev.penstock.atoms.system.AtomicSystem;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/// A step-by-step optimiser of one system (its own state: time step, mixing, counters), whose
/// state can be saved and restored exactly (checkpoints).
public interface Optimizer {
    /// One step from the forces already in `s`.
    void step(AtomicSystem s);

    /// Writes the optimiser's state.
    void save(DataOutput out) throws IOException;

    /// Reads back what `save` wrote.
    void restore(DataInput in) throws IOException;
}
