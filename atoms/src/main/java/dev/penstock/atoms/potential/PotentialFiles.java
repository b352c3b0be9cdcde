package dev.penstock.atoms.potential;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/// Reading a potential parameter file: refused, naming it, if it is missing, not a regular file
/// (a device or a pipe would never end) or larger than any potential file (256 MiB).
final class PotentialFiles {
    private static final long MAX_BYTES = 256L << 20;

    private PotentialFiles() {
    }

    /// The lines of `file`, a `kind` potential file ("EAM", "Stillinger-Weber", …).
    static List<String> lines(Path file, String kind) throws IOException {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(file + ": no such " + kind + " potential file");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(file + ": not a regular file (a " + kind + " potential file is expected)");
        }
        if (Files.size(file) > MAX_BYTES) {
            throw new IllegalArgumentException(file + ": " + Files.size(file) + " bytes, larger than any " + kind + " potential file");
        }
        return Files.readAllLines(file);
    }
}
