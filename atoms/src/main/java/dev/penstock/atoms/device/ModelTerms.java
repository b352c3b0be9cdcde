package dev.penstock.atoms.device;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Stream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// A `Model` — EAM, Stillinger–Weber, Tersoff, or one of a user's own — as a device stage's
/// shared evaluation on kernels that run it (`RelaxKernels.models()`: the CPU's): every step, each
/// system of the packed batch is computed by the model from its rows of the `pos` column, and its
/// forces, energy, max |F_i| and virial written back to its rows (`CpuRelaxKernels`, the systems
/// split over the kernels' threads, each system on one: the numbers do not depend on the split).
///
/// ```
///   admitted(s)  ─▶ a view of s: its id, atomic numbers, masses, cell (constant while it is in
///                   the batch) and its own positions array, kept by id
///   each step    ─▶ pos rows ─copy─▶ view ─model.compute─▶ force rows, ENERGY, FMAX, VIRIAL
///   left(id)     ─▶ the view dropped, model.forget(id) (its neighbour list)
/// ```
///
/// The model keeps what it keeps per system (its neighbour lists) by id, as on the per-system
/// stages, and saves it in a checkpoint the same way (`Model.save`/`restore`), so a system's
/// numbers are those of the per-system stage bit for bit, before and after a restore. A system
/// the model refuses mid-run (`IllegalStateException`/`IllegalArgumentException`: overlapping
/// atoms) is flagged `FLAG_MODEL` and quarantined with the model's words, the others untouched.
///
/// Threading: `admitted`, `left`, `save`, `restore` on the stage's thread while its stream is
/// idle; `system` and `compute` on the kernels' threads, different systems at once (as `Model`
/// allows).
public final class ModelTerms implements BatchTerms {
    private final Model model;
    private final Map<Long, AtomicSystem> views = new ConcurrentHashMap<>();
    private final Map<Long, String> failures = new ConcurrentHashMap<>();
    private volatile long generation; // changed by every admission and departure

    /// Terms of `model`.
    public ModelTerms(Model model) {
        this.model = model;
    }

    @Override
    public Model model() {
        return model;
    }

    @Override
    public String refusal(RelaxKernels kernels, String method, String deviceName) {
        return kernels.models() ? null : "stage '" + method + "' on " + deviceName + ": its kernels sum Lennard-Jones and Morse pairs only, "
                + "not " + model + "; run it with --device cpu or on the per-system stages (no --device)";
    }

    @Override
    public void enqueue(RelaxKernels kernels, Stream stream, RelaxColumns c, int systems, int atoms) {
        kernels.evaluate(stream, c, systems, atoms, this);
    }

    @Override
    public void admitted(AtomicSystem s) {
        views.put(s.id(), new AtomicSystem(s.id(), s.positions(), s.masses(), s.numbers(), s.cell()));
        generation++; // one writer: the stage's thread
    }

    @Override
    public void left(long id) {
        views.remove(id);
        failures.remove(id);
        model.forget(id);
        generation++;
    }

    /// A number that changes whenever a system comes or goes: the kernels look the rows'
    /// views up again only then.
    public long generation() {
        return generation;
    }

    /// System `id`'s view: the kernels copy its packed positions into `positions()` and read
    /// its forces, energy and virial after `compute`.
    public AtomicSystem system(long id) {
        AtomicSystem v = views.get(id);
        if (v == null) {
            throw new IllegalStateException("system " + id + " is not in this batch");
        }
        return v;
    }

    /// Computes `view` (a `system`); false if the model refused it (why is kept for the diagnosis).
    public boolean compute(AtomicSystem view) {
        try {
            model.compute(view);
            return true;
        } catch (IllegalStateException | IllegalArgumentException e) {
            failures.put(view.id(), "system " + view.id() + ": the model failed: " + e.getMessage());
            return false;
        }
    }

    @Override
    public byte[] save(long id) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        model.save(id, out);
        out.flush();
        return bytes.toByteArray();
    }

    @Override
    public void restore(AtomicSystem s, byte[] saved) throws IOException {
        if (saved.length > 0) {
            model.restore(system(s.id()), new DataInputStream(new ByteArrayInputStream(saved)));
        }
    }

    @Override
    public boolean virial() {
        return true;
    }

    @Override
    public String diagnosis(int flag, long id) {
        String why = failures.get(id);
        return why != null ? why : "system " + id + ": the model failed";
    }
}
