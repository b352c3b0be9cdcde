package dev.penstock.io;

import java.nio.file.Path;

/// An input file is not what its format says: the message is one line naming the file, the
/// line, row or byte, and what was expected there. A user error, never a bug.
public class BadInputException extends IllegalArgumentException {
    private final transient Path file;

    /// A problem in `file` (null when the input has no file) described by `message`, which
    /// already names the position.
    public BadInputException(Path file, String message) {
        super(message);
        this.file = file;
    }

    /// A problem in `file` found by a reader that threw `cause`.
    public BadInputException(Path file, String message, Throwable cause) {
        super(message, cause);
        this.file = file;
    }

    /// The input file, or null.
    public Path file() {
        return file;
    }
}
