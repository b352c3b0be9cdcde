package dev.penstock.atoms.integrate;

/// A Nosé–Hoover chain thermostat as LAMMPS's `fix nvt temp T T tdamp` integrates it
/// (`FixNH::nhc_temp_integrate`: the Trotter splitting of Martyna, Tuckerman and Klein, `tchain`
/// thermostats, `tloop` loops, no drag, the masses kept at the target temperature): a half step
/// of the chain before the velocity Verlet step's first half kick and one after its second, each
/// scaling the velocities. Quantities in Penstock's units (eV, Å, amu, τ): `ke` is Σ m v² (LAMMPS's
/// `tdof · k_B · t_current`), `kT` the target temperature times k_B, `tfreq` 1/tdamp.
///
/// The chain's state is three arrays of `chain` entries: positions η, velocities η̇ (one entry
/// more, always 0: LAMMPS's `eta_dot[mtchain]`) and forces η̈. The masses: Q₀ = tdof·kT/tfreq²,
/// Q_k = kT/tfreq² (k ≥ 1), tdof the system's degrees of freedom (3N − 3: LAMMPS's `compute
/// temp`). Its exponentials are `PortableMath.exp`'s (within 2 ulp of the true value, as LAMMPS's
/// libm), so that `relax.cu`'s chain computes the same bits.
public final class NoseHoover {
    /// The longest chain the packed batches hold state for.
    public static final int MAX_CHAIN = 5;

    private NoseHoover() {
    }

    /// The chain at rest before the first step (LAMMPS's `setup`): η = η̇ = 0, η̈_k = −kT/Q_k for
    /// k ≥ 1 (η̈₀ is set by the first half step).
    public static void start(double[] eta, double[] etaDot, double[] etaDotDot, int chain, double kT, double tfreq) {
        for (int k = 0; k < chain; k++) {
            eta[k] = 0;
            etaDot[k] = 0;
            etaDotDot[k] = 0;
        }
        etaDot[chain] = 0;
        double qk = mass(1, 0, kT, tfreq);
        for (int k = 1; k < chain; k++) {
            etaDotDot[k] = (0 - kT) / qk; // (Q_{k−1}·η̇_{k−1}² − kT)/Q_k with η̇ = 0
        }
    }

    /// Q_k for a system of `tdof` degrees of freedom.
    private static double mass(int k, double tdof, double kT, double tfreq) {
        return k == 0 ? tdof * kT / (tfreq * tfreq) : kT / (tfreq * tfreq);
    }

    /// One half step of the chain over a system's velocities `v` (`n3` components), whose Σ m v²
    /// is `ke`; returns Σ m v² after the scaling (as LAMMPS: `ke` times the squared factors).
    public static double half(double[] v, int n3, double[] eta, double[] etaDot, double[] etaDotDot, int chain, int tloop, double ke,
                              double tdof, double kT, double tfreq, double dt) {
        double dthalf = 0.5 * dt;
        double dt4 = 0.25 * dt;
        double dt8 = 0.125 * dt;
        double keTarget = tdof * kT;
        double q0 = mass(0, tdof, kT, tfreq);
        double qk = mass(1, tdof, kT, tfreq);
        etaDotDot[0] = q0 > 0 ? (ke - keTarget) / q0 : 0;
        double ncfac = 1.0 / tloop;
        for (int loop = 0; loop < tloop; loop++) {
            for (int k = chain - 1; k > 0; k--) {
                double expfac = dev.penstock.atoms.device.PortableMath.exp(-ncfac * dt8 * etaDot[k + 1]);
                etaDot[k] *= expfac;
                etaDot[k] += etaDotDot[k] * ncfac * dt4;
                etaDot[k] *= expfac;
            }
            double expfac = dev.penstock.atoms.device.PortableMath.exp(-ncfac * dt8 * etaDot[1]);
            etaDot[0] *= expfac;
            etaDot[0] += etaDotDot[0] * ncfac * dt4;
            etaDot[0] *= expfac;
            double factor = dev.penstock.atoms.device.PortableMath.exp(-ncfac * dthalf * etaDot[0]);
            for (int q = 0; q < n3; q++) {
                v[q] *= factor;
            }
            ke *= factor * factor;
            etaDotDot[0] = q0 > 0 ? (ke - keTarget) / q0 : 0;
            for (int k = 0; k < chain; k++) {
                eta[k] += ncfac * dthalf * etaDot[k];
            }
            etaDot[0] *= expfac;
            etaDot[0] += etaDotDot[0] * ncfac * dt4;
            etaDot[0] *= expfac;
            for (int k = 1; k < chain; k++) {
                expfac = dev.penstock.atoms.device.PortableMath.exp(-ncfac * dt8 * etaDot[k + 1]);
                etaDot[k] *= expfac;
                double below = k == 1 ? q0 : qk;
                etaDotDot[k] = (below * etaDot[k - 1] * etaDot[k - 1] - kT) / qk;
                etaDot[k] += etaDotDot[k] * ncfac * dt4;
                etaDot[k] *= expfac;
            }
        }
        return ke;
    }

    /// The chain's share of the conserved quantity (LAMMPS's `FixNH::compute_scalar`, Martyna et al.
    /// 1996 eq. 2): tdof·kT·η₀ + ½Q₀η̇₀² + Σ_{k≥1} (kT·η_k + ½Q_kη̇_k²).
    public static double energy(double[] eta, double[] etaDot, int chain, double tdof, double kT, double tfreq) {
        double e = tdof * kT * eta[0] + 0.5 * mass(0, tdof, kT, tfreq) * etaDot[0] * etaDot[0];
        for (int k = 1; k < chain; k++) {
            e += kT * eta[k] + 0.5 * mass(k, tdof, kT, tfreq) * etaDot[k] * etaDot[k];
        }
        return e;
    }
}
