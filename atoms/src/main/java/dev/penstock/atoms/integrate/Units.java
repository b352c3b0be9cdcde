package dev.penstock.atoms.integrate;

/// Units (docs/definitions.md): eV, Å, amu; time in τ = Å·√(amu/eV) = 10.180505710759414 fs.
public final class Units {
    /// One τ in femtoseconds.
    public static final double TAU_FS = 10.180505710759414;
    /// Boltzmann's constant in eV/K.
    public static final double KB_EV_PER_K = 8.617333262e-5;
    /// One eV/Å³ in bar (ASE's `units.eV / units.Angstrom**3 / units.bar`, CODATA 2018).
    public static final double BAR_PER_EV_PER_A3 = 1.602176634e6;

    private Units() {
    }

    /// A time step in fs as τ.
    public static double fsToTau(double fs) {
        return fs / TAU_FS;
    }
}
