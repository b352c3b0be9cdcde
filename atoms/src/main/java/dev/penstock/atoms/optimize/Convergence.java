package dev.penstock.atoms.optimize;

/// When a relaxation stops: converged when max |F_i| < `fmax` (eV/Å) and, if `energyTolerance`
/// is positive, the energy changed by less than it over the last step; stopped (not converged)
/// after `maxSteps` steps — the per-system step budget.
///
/// @param fmax             force criterion (ASE's `fmax`); 0: none, a step budget only (`budgetOnly`)
/// @param energyTolerance  largest |E(step) − E(step − 1)| that counts as converged; 0 to ignore
/// @param maxSteps         step budget (≥ 0)
public record Convergence(double fmax, double energyTolerance, int maxSteps) {

    /// Validates the rule.
    public Convergence {
        if (!(fmax >= 0) || !(energyTolerance >= 0) || maxSteps < 0) {
            throw new IllegalArgumentException("convergence: 'fmax', 'energyTolerance' and 'maxSteps' must be non-negative, got "
                    + fmax + ", " + energyTolerance + ", " + maxSteps);
        }
    }

    /// A step budget only: no force criterion (fmax 0, which no system meets); its systems run
    /// `maxSteps` steps and are not said to be unconverged.
    public static Convergence budgetOnly(int maxSteps) {
        return new Convergence(0, 0, maxSteps);
    }

    /// Whether this rule is a step budget only (`budgetOnly`).
    public boolean isBudgetOnly() {
        return fmax == 0;
    }

    /// Force criterion and step budget only.
    public static Convergence of(double fmax, int maxSteps) {
        return new Convergence(fmax, 0, maxSteps);
    }

    /// Whether a system with these forces and energies has converged.
    public boolean converged(double maxForce, double energy, double previousEnergy) {
        if (!(maxForce < fmax)) {
            return false;
        }
        return energyTolerance == 0 || Math.abs(energy - previousEnergy) < energyTolerance;
    }
}
