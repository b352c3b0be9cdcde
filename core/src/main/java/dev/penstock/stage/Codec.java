package dev.penstock.stage;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/// How a sample is written to and read back from bytes (for the disk overflow tier, and for
/// moving samples between machines). `read(write(s))` must equal `s` in every field a stage uses.
///
/// @param <S> the sample type
public interface Codec<S> {
    /// Writes `sample`.
    void write(S sample, DataOutput out) throws IOException;

    /// Reads one sample written by `write`.
    S read(DataInput in) throws IOException;
}
