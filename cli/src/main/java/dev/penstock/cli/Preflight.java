package dev.penstock.cli;

import com.sun.management.OperatingSystemMXBean;
import dev.penstock.memory.DType;
import dev.penstock.quantum.EncodePipeline;
import java.io.IOException;
import java.io.PrintStream;
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

    /// The encode's plan checked against the machine: the memory it will allocate (refused when
    /// it does not fit), OUT's size against the free space (a `.npy`: refused when it does not
    /// fit), and the plan printed when asked (`dryRun`) or when it is large.
    static void encodePlan(CommandSpec spec, PrintStream o, long rows, int rowLength, DType in, EncodePipeline.Config cfg, Path target,
            boolean zarr, boolean dryRun) {
        encodePlan(spec, o, rows, rowLength, in, cfg, target, zarr, dryRun, false);
    }

    /// As above; on Flink (`flink`) the tasks' shards and the joined output lie on OUT's disk at
    /// once, so twice the output must be free.
    static void encodePlan(CommandSpec spec, PrintStream o, long rows, int rowLength, DType in, EncodePipeline.Config cfg, Path target,
            boolean zarr, boolean dryRun, boolean flink) {
        int qubits = cfg.qubits();
        int rowsPerChunk = cfg.rowsPerChunk();
        long stateBytes = cfg.output().byteSize() << qubits;
        double outBytes = ((double) rows * stateBytes + rows * 8.0) * (flink ? 2 : 1);
        long memory = EncodePipeline.hostBytes(rows, rowLength, in, cfg);
        Preflight.forMemory(spec, memory, "chunks of " + Math.min(rowsPerChunk, Math.max(1, rows)) + " rows of " + qubits
                + "-qubit states", "use a smaller --rows-per-chunk or fewer --qubits");
        long out = outBytes >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) outBytes;
        long free = Preflight.usableBytes(target);
        if (!zarr) {
            Preflight.forOutput(spec, "option '--out' " + target + (flink ? " (with the Flink tasks' shards beside it)" : ""), target, out);
        }
        // a Zarr store's compressed size is known only once written: announced, not refused (a
        // full disk then fails the write and leaves OUT as it was)
        if (dryRun || out > Preflight.ANNOUNCE_BYTES || zarr && out > free) {
            o.printf(Locale.ROOT, "plan: %,d rows of %d %s values -> %,d %d-qubit %s states, %s%s at %s; buffers %s; "
                    + "free: %s on disk, %s of memory%s%n", rows, rowLength, in.label(), rows, qubits, cfg.output().label(),
                    zarr ? "at most " : "", Preflight.bytes(out), target, Preflight.bytes(memory), Preflight.bytes(free),
                    Preflight.bytes(Preflight.memoryBytes()), zarr && out > free ? " (may not fit once compressed)" : "");
        }
    }
}
