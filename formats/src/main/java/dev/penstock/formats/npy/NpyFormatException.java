package dev.penstock.formats.npy;

import dev.penstock.io.BadInputException;
import java.nio.file.Path;

/// A `.npy` file is corrupt, truncated or of a type Penstock does not read. The message names
/// the file, the byte position and what was expected there.
public final class NpyFormatException extends BadInputException {
    private final long position;

    /// A problem in `file` at byte `position`.
    public NpyFormatException(Path file, long position, String message) {
        super(file, file + ": byte " + position + ": " + message);
        this.position = position;
    }

    /// The byte position of the problem.
    public long position() {
        return position;
    }
}
