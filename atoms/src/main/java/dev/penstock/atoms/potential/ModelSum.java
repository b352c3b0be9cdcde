package dev.penstock.atoms.potential;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.List;

/// Models summed, as LAMMPS's `pair_style hybrid/overlay` sums its sub-styles: each computes the
/// whole system in turn, in the order given; the energy, every force component and the virial are
/// the parts' added in that order (the virial only when every part gives one). What a checkpoint
/// keeps of each part is written and read in the same order.
///
/// Threading: as the parts' (every built-in model: different systems at once).
public final class ModelSum implements Model, AutoCloseable {
    private final List<Model> parts;

    /// The sum of `parts` (at least two).
    public ModelSum(List<? extends Model> parts) {
        if (parts.size() < 2) {
            throw new IllegalArgumentException("a sum of potentials needs at least two, got " + parts.size());
        }
        this.parts = List.copyOf(parts);
    }

    /// The summed models, in order.
    public List<Model> parts() {
        return parts;
    }

    @Override
    public void compute(AtomicSystem s) {
        compute(s, null);
    }

    @Override
    public void compute(AtomicSystem s, Crew crew) {
        compute(s, crew, false);
    }

    /// Each part with `virial` asked of it (`Model.compute(system, crew, virial)`); the sum's virial
    /// is the parts' when every part gave one.
    @Override
    public void compute(AtomicSystem s, Crew crew, boolean asked) {
        int n3 = 3 * s.atoms();
        double[] f = new double[n3];
        double[] w = new double[9];
        boolean virial = true;
        double e = 0;
        for (int k = 0; k < parts.size(); k++) {
            parts.get(k).compute(s, crew, asked);
            e += s.energy();
            double[] fk = s.forces();
            for (int q = 0; q < n3; q++) {
                f[q] += fk[q];
            }
            double[] wk = s.virial();
            virial &= wk != null;
            for (int q = 0; virial && q < 9; q++) {
                w[q] += wk[q];
            }
        }
        System.arraycopy(f, 0, s.forces(), 0, n3);
        s.energy(e);
        s.virial(virial ? w : null);
    }

    /// The summed models' terms per atom.
    @Override
    public long termsPerAtom() {
        long t = 0;
        for (Model m : parts) {
            t += m.termsPerAtom();
        }
        return t;
    }

    /// The most parts any summed model splits a system into.
    @Override
    public int parts(int atoms) {
        int k = 1;
        for (Model m : parts) {
            k = Math.max(k, m.parts(atoms));
        }
        return k;
    }

    @Override
    public double cutoff() {
        double c = 0;
        for (Model m : parts) {
            c = Math.max(c, m.cutoff());
        }
        return c;
    }

    @Override
    public String refusal(AtomicSystem s) {
        for (Model m : parts) {
            String r = m.refusal(s);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    @Override
    public void forget(long id) {
        for (Model m : parts) {
            m.forget(id);
        }
    }

    @Override
    public void save(long id, DataOutput out) throws IOException {
        for (Model m : parts) {
            m.save(id, out);
        }
    }

    @Override
    public void restore(AtomicSystem s, DataInput in) throws IOException {
        for (Model m : parts) {
            m.restore(s, in);
        }
    }

    /// Stops the parts' threads (those that keep any).
    @Override
    public void close() throws Exception {
        for (Model m : parts) {
            if (m instanceof AutoCloseable c) {
                c.close();
            }
        }
    }

    /// The sum as the CLI names it: its parts joined by " + ".
    @Override
    public String toString() {
        return String.join(" + ", parts.stream().map(Object::toString).toList());
    }
}
