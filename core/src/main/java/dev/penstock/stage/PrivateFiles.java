package dev.penstock.stage;

import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;

/// Permissions for files a run writes for itself (overflow tiers, spill): readable by the user
/// alone, `rw-------` and `rwx------`, where the file system is POSIX; none asked for elsewhere.
final class PrivateFiles {
    private PrivateFiles() {
    }

    private static boolean posix(Path where) {
        return where.toAbsolutePath().getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    static FileAttribute<?>[] fileAttributes(Path where) {
        return posix(where) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
    }

    static FileAttribute<?>[] directoryAttributes(Path where) {
        return posix(where) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
                : new FileAttribute<?>[0];
    }
}
