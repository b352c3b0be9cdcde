package dev.penstock.atoms.device;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.potential.Morse;
import dev.penstock.atoms.potential.PairPotential;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Stream;
import java.io.IOException;

/// What a device stage's shared evaluation computes, chosen once when its batch is made:
/// Lennard-Jones or Morse pairs that the kernels sum themselves (`Pairs`, on kernels that do:
/// `RelaxKernels.sumsPairs`, CUDA's), or any `Model` — EAM, Stillinger–Weber, Tersoff, a user's own,
/// and on the CPU's kernels Lennard-Jones and Morse too — evaluated by the model over each
/// system's packed rows (`ModelTerms`). `PackedStage` calls the same methods either way, so its
/// step has no check of which it is.
sealed interface BatchTerms permits BatchTerms.Pairs, ModelTerms {
    /// The terms of `model` on `kernels`: its pair parameters for Lennard-Jones and Morse where
    /// the kernels sum pairs, otherwise the model itself (`ModelTerms`).
    /// `virialIn` marks the sub-stages that read the virial every step (a barostat's, a cell
    /// relaxation's): only their rows' virials are asked of the model, or taken from the pair kernels.
    static BatchTerms of(Model model, RelaxKernels kernels, boolean[] virialIn) {
        if ((model instanceof LennardJones || model instanceof Morse) && kernels.sumsPairs()) {
            return new Pairs((PairPotential) model, RelaxKernels.Pair.of((PairPotential) model), kernels.pairVirial(), virialIn.clone());
        }
        ModelTerms m = new ModelTerms(model);
        m.virialIn(virialIn);
        return m;
    }

    /// The model.
    Model model();

    /// Why `kernels` cannot evaluate these terms (naming the stage `method` on `deviceName`), or null.
    String refusal(RelaxKernels kernels, String method, String deviceName);

    /// Enqueues the evaluation of systems `[0, systems)` (atoms `[0, atoms)`) of `c` on `stream`.
    void enqueue(RelaxKernels kernels, Stream stream, RelaxColumns c, int systems, int atoms);

    /// `s` has been packed into the batch (host thread, the stream idle).
    default void admitted(AtomicSystem s) {
    }

    /// System `id` has left the batch.
    default void left(long id) {
    }

    /// What the model keeps for system `id` that its next results depend on (a checkpoint's
    /// `StageBatch.Held.evaluation`).
    default byte[] save(long id) throws IOException {
        return new byte[0];
    }

    /// Takes back what `save` wrote, for `s` (just admitted again from a checkpoint).
    default void restore(AtomicSystem s, byte[] saved) throws IOException {
    }

    /// Whether the evaluation writes the `VIRIAL` columns of a row in sub-stage `sub` (NaN: the model
    /// computed none), which a leaving system then takes as its virial.
    default boolean virial(int sub) {
        return false;
    }

    /// The diagnosis of system `id`, flagged by the evaluation itself (pairs: `FLAG_OVERLAP`; a
    /// model: `FLAG_MODEL`).
    String diagnosis(long id);

    /// Lennard-Jones or Morse: the kernels sum the pairs from these parameters.
    ///
    /// @param potential the model
    /// @param pair      its parameters as the kernels take them
    /// @param virial    whether the kernels write the virial (`RelaxKernels.pairVirial`)
    /// @param virialIn  the sub-stages whose rows take it (as the CPU's pair models give it only there,
    ///                  or everywhere when `PairPotential.virial(true)` set it on)
    record Pairs(PairPotential potential, RelaxKernels.Pair pair, boolean virial, boolean[] virialIn) implements BatchTerms {
        @Override
        public boolean virial(int sub) {
            return virial && (sub < virialIn.length && virialIn[sub] || potential.virialAlways());
        }

        @Override
        public Model model() {
            return potential;
        }

        @Override
        public String refusal(RelaxKernels kernels, String method, String deviceName) {
            return null;
        }

        @Override
        public void enqueue(RelaxKernels kernels, Stream stream, RelaxColumns c, int systems, int atoms) {
            kernels.evaluate(stream, c, systems, atoms, pair);
        }

        @Override
        public String diagnosis(long id) {
            return "system " + id + ": atoms closer than " + potential.overlap() + " Å (overlap)";
        }
    }
}
