package dev.penstock.atoms.io;

/// The LAMMPS input of the `md` workload (docs/workloads.md): LAMMPS's classic `bench/in.lj` — fcc
/// lattice at density 0.8442, T = 1.44, unshifted cutoff 2.5σ, skin 0.3σ, NVE, dt 0.005 τ, 100
/// steps — with exact neighbour rebuilds (`delay 0 every 1 check yes`), the start written to
/// `start.data` (read it with `LammpsData`) and every step's thermo at full precision (read it
/// with `LammpsLog`: `Step Temp PotEng KinEng TotEng`). One text for the benchmark and the test
/// that compares energies, so the two cannot drift apart.
public final class LammpsLjBench {
    private LammpsLjBench() {
    }

    /// The input for a box of `cells`³ fcc unit cells (4·cells³ atoms), thermo at every step.
    public static String input(int cells) {
        return input(cells, 1);
    }

    /// The same run printing thermo every `thermoEvery` steps: `thermo 100` is how LAMMPS's users
    /// time it (thermo at every step with 17 digits costs LAMMPS a third of its time here).
    public static String input(int cells, int thermoEvery) {
        if (thermoEvery < 1) {
            throw new IllegalArgumentException("thermoEvery must be at least 1, got " + thermoEvery);
        }
        if (cells < 1) {
            throw new IllegalArgumentException("cells must be at least 1, got " + cells);
        }
        return """
                units           lj
                atom_style      atomic
                lattice         fcc 0.8442
                region          box block 0 %d 0 %d 0 %d
                create_box      1 box
                create_atoms    1 box
                mass            1 1.0
                velocity        all create 1.44 87287 loop geom
                pair_style      lj/cut 2.5
                pair_coeff      1 1 1.0 1.0 2.5
                neighbor        0.3 bin
                neigh_modify    delay 0 every 1 check yes
                fix             1 all nve
                write_data      start.data
                thermo_style    custom step temp pe ke etotal
                thermo_modify   format float %%.17g
                thermo          %d
                run             100
                """.formatted(cells, cells, cells, thermoEvery);
    }
}
