package dev.penstock.atoms.potential;

/// A three-body model from a LAMMPS triplet file (`TripletFile`: Stillinger–Weber, Tersoff): per
/// entry its parameters, the entry of each element triplet, and the largest cutoff of any entry
/// (the lists' radius).
///
/// Threading: different systems may be computed at once from different threads.
abstract class TripletModel extends FileModel {
    /// Per entry: its parameters (each model's layout).
    final double[][] p;
    /// `[i][j][k]` (flattened over the file's elements) → entry.
    final int[] elem3;
    /// The largest cutoff of any entry, Å.
    final double cutmax;

    TripletModel(Species species, double[][] p, int[] elem3, double cutmax) {
        super(species, cutmax);
        this.p = p;
        this.elem3 = elem3;
        this.cutmax = cutmax;
    }
}
