package dev.penstock.io;

import java.io.IOException;

/// An output that cannot be written as asked: its destination is an input, is the wrong kind
/// of file, holds files that are not the writer's, or will not fit. The message is one line
/// that names the path and what to change.
public final class OutputException extends IOException {
    /// An output error with a user-ready message.
    public OutputException(String message) {
        super(message);
    }
}
