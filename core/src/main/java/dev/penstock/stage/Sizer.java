package dev.penstock.stage;

import java.util.List;

/// What a pipeline needs to know of a sample type: its id and its sizes in the dimensions the
/// type declares (for atomic systems: systems, atoms, edges). Buffers and batches have a
/// capacity in each dimension; a sample takes `size(sample, d)` of dimension d.
///
/// @param <S> the sample type
public interface Sizer<S> {
    /// The names of the dimensions, e.g. `["systems", "atoms", "edges"]`.
    List<String> dimensions();

    /// The sample's size in dimension `d` (non-negative).
    long size(S sample, int d);

    /// The sample's id, unique within a run.
    long id(S sample);
}
