package dev.penstock.cli;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/// Checks before anything is written: the output fits on its disk, the buffers in memory.
/// Refusals name the figure, what is free and the option to change.
final class Preflight {
    /// Outputs larger than this are announced before they are written.
    static final long ANNOUNCE_BYTES = 1L << 30;
    /// Share of the machine's memory a run may plan to allocate.
    private static final double MEMORY_SHARE = 0.8;

    private Preflight() {
    }

    /// Refuses an output of `bytes` that the file system under `out` cannot hold.
    static void forOutput(CommandSpec spec, String what, Path out, long bytes) {
        long free = usableBytes(out);
        if (bytes > free) {
            throw new ParameterException(spec.commandLine(), String.format(Locale.ROOT, "%s needs %s but only %s is free there",
                    what, bytes(bytes), bytes(free)));
        }
    }

    /// Refuses a run that plans to allocate `bytes` of memory the machine does not have.
    static void forMemory(CommandSpec spec, long bytes, String what, String change) {
        long total = memoryBytes();
        if (bytes > total * MEMORY_SHARE) {
            throw new ParameterException(spec.commandLine(), String.format(Locale.ROOT, "%s need %s of memory; this machine has %s: %s",
                    what, bytes(bytes), bytes(total), change));
        }
    }

    /// Bytes free to this user on the file system that holds (or will hold) `out`.
    static long usableBytes(Path out) {
        Path p = out.toAbsolutePath();
        while (p != null && !Files.exists(p)) {
            p = p.getParent();
        }
        try {
            return p == null ? Long.MAX_VALUE : Files.getFileStore(p).getUsableSpace();
        } catch (IOException e) {
            return Long.MAX_VALUE; // unknown: the write itself reports a full disk, leaving OUT as it was
        }
    }

    /// The machine's physical memory.
    static long memoryBytes() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return Runtime.getRuntime().maxMemory();
    }

    /// `bytes` for people: "19.7 GB".
    static String bytes(long bytes) {
        if (bytes == Long.MAX_VALUE) {
            return "more than 9 EB";
        }
        String[] units = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
        double v = bytes;
        int u = 0;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
