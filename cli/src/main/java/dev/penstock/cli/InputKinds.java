package dev.penstock.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/// What a file that is not the format a command reads looks like, from its first bytes: so that
/// an ASE trajectory given to `simulate` is named as one, not reported as an unwritable output.
final class InputKinds {
    private InputKinds() {
    }

    /// `" (it looks like …)"` naming the file's kind, or `" (a binary file)"`, or "" when unreadable.
    static String lookslike(Path file) {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(16);
        } catch (IOException e) {
            return "";
        }
        String kind = kind(head);
        return kind == null ? " (a binary file)" : " (it looks like " + kind + ")";
    }

    static String kind(byte[] head) {
        if (starts(head, "- of Ulm")) {
            return "an ASE trajectory, .traj: convert it with ase.io.write('out.xyz', ase.io.read(path, ':'))";
        }
        if (starts(head, "\u0089HDF\r\n\u001a\n")) {
            return "an HDF5 file";
        }
        if (starts(head, "CDF\u0001") || starts(head, "CDF\u0002")) {
            return "a NetCDF file (an AMBER or ASE NetCDF trajectory?)";
        }
        if (head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b) {
            return "a gzip file: decompress it first";
        }
        if (starts(head, "PK\u0003\u0004")) {
            return "a zip archive (a NumPy .npz?)";
        }
        if (starts(head, "\u0093NUMPY")) {
            return "a NumPy .npy file";
        }
        if (starts(head, "PAR1")) {
            return "a Parquet file";
        }
        return null;
    }

    private static boolean starts(byte[] head, String magic) {
        byte[] m = magic.getBytes(StandardCharsets.ISO_8859_1);
        return head.length >= m.length && Arrays.equals(head, 0, m.length, m, 0, m.length);
    }
}
