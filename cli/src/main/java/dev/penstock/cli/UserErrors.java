package dev.penstock.cli;

import dev.penstock.io.BadInputException;
import dev.penstock.io.OutputException;
import dev.penstock.quantum.EncodingException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/// Turns what a command threw into one line on stderr and an exit code (`ExitCodes`). A user
/// error (bad input, an output that cannot be written, a bad value) is one line; with `--debug`
/// its trace follows. Anything else is an internal error: a line saying so, then the trace.
final class UserErrors {
    private UserErrors() {
    }

    static int report(Exception thrown, CommandLine cl, boolean debug) {
        PrintWriter err = cl.getErr();
        String who = cl.getCommandSpec().qualifiedName();
        Throwable cause = userCause(thrown);
        int code;
        String line;
        if (cause instanceof ParameterException p) {
            line = p.getMessage() + " (see " + who + " --help)";
            code = ExitCodes.USAGE;
        } else if (cause instanceof BadInputException || cause instanceof EncodingException) {
            line = cause.getMessage();
            code = ExitCodes.BAD_INPUT;
        } else if (cause instanceof OutputException) {
            line = cause.getMessage();
            code = ExitCodes.OUTPUT_FAILED;
        } else if (cause instanceof IOException io) {
            line = describe(io) + "; outputs left as they were";
            code = ExitCodes.OUTPUT_FAILED;
        } else if (cause instanceof IllegalArgumentException) {
            line = cause.getMessage();
            code = ExitCodes.USAGE;
        } else {
            err.println(who + ": internal error (a bug in Penstock, please report it with the trace below): " + thrown);
            thrown.printStackTrace(err);
            err.flush();
            return ExitCodes.INTERNAL;
        }
        err.println(who + ": " + line);
        if (debug) {
            thrown.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    /// The exception in the cause chain that a user can act on (bad input before a failed
    /// output: a reader's error wrapped in an I/O failure is still the reader's), or `thrown`.
    static Throwable userCause(Throwable thrown) {
        Throwable io = null;
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ParameterException || t instanceof BadInputException || t instanceof EncodingException) {
                return t;
            }
            if (io == null && t instanceof IOException) {
                io = t;
            }
        }
        if (io != null) {
            return io;
        }
        Throwable t = thrown;
        while ((t instanceof ExecutionException || t instanceof UncheckedIOException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /// `e` as an error that names `out` (a full disk reports "No space left on device" alone).
    static IOException naming(java.nio.file.Path out, IOException e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        return m.contains(out.getFileName().toString()) || e instanceof FileSystemException f && f.getFile() != null ? e
                : new IOException("cannot write " + out + ": " + m, e);
    }

    private static String describe(IOException e) {
        if (e instanceof NoSuchFileException f) {
            return f.getFile() + ": no such file or directory";
        }
        if (e instanceof AccessDeniedException f) {
            return f.getFile() + ": permission denied";
        }
        if (e instanceof FileSystemException f && f.getFile() != null) {
            return f.getFile() + ": " + (f.getReason() != null ? f.getReason() : f.getMessage());
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
