/// Atomic systems as samples of `dev.penstock.stage` pipelines: their sizes (systems, atoms,
/// edges), the model as the shared evaluation, and FIRE, FIRE2, velocity Verlet and Langevin as
/// stage methods with per-system parameters.
package dev.penstock.atoms.stage;
