package dev.penstock.cli;

import dev.penstock.atoms.device.RelaxColumns;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/// What a `simulate` run will hold and write, checked before anything is created: every system
/// must fit a stage's batch (`--max-atoms`), the stages' batch columns must fit in memory, and
/// the output on its disk.
///
/// Memory counts each stage's batch columns at full capacity (`RelaxColumns`: 316 bytes a system
/// row, 116 an atom row), twice on the CPU device (the batch and its host staging), not the
/// neighbour lists, which grow with the systems admitted. Output: extended XYZ writes per atom a
/// species and 10 numbers (positions, mass, momenta, forces), each as Java prints a double: at
/// least 4 bytes with its space ("0.0 "), typically ~20 after a run; a `.zarr` store is
/// compressed, its size known once written.
///
/// @param systems     input systems
/// @param atoms       their atoms
/// @param largest     atoms of the largest system
/// @param stages      chained stages (each with its own batch)
/// @param batchBytes  one stage's batch columns at capacity
/// @param leastBytes  the smallest the output can be
/// @param typicalBytes what it typically takes
record SimulatePlan(int systems, long atoms, long largest, int stages, long batchBytes, long leastBytes, long typicalBytes) {
    private static final long SYSTEM_ROW = RelaxColumns.INT_COLUMNS * 4L + RelaxColumns.DOUBLE_COLUMNS * 8L;
    private static final long ATOM_ROW = 12 * 8L + 8 + 8 + 4; // pos vel force last, mass, atomEnergy, atomSystem

    /// The plan of simulating `input` through `stages` stages with batches of `maxSystems`
    /// systems and `maxAtoms` atoms, into a `.zarr` store when `zarr`.
    static SimulatePlan of(List<AtomicSystem> input, int stages, long maxSystems, long maxAtoms, boolean zarr) {
        long atoms = 0;
        long largest = 0;
        long headers = 0;
        for (AtomicSystem s : input) {
            atoms += s.atoms();
            largest = Math.max(largest, s.atoms());
            headers += 200; // lattice, properties, energy, id, stress, pbc
        }
        long batch = Math.multiplyHigh(maxSystems, SYSTEM_ROW) != 0 || Math.multiplyHigh(maxAtoms, ATOM_ROW) != 0 ? Long.MAX_VALUE
                : saturatingAdd(maxSystems * SYSTEM_ROW, maxAtoms * ATOM_ROW);
        long least = zarr ? 0 : headers + atoms * (3 + 10 * 4);
        long typical = zarr ? atoms * 100 : headers + atoms * (3 + 10 * 20);
        return new SimulatePlan(input.size(), atoms, largest, stages, batch, least, typical);
    }

    private static long saturatingAdd(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
    }

    /// Memory the stages' batches take: `copies` of each stage's columns (2 on the CPU device).
    long memoryBytes(int copies) {
        return batchBytes == Long.MAX_VALUE ? Long.MAX_VALUE : Math.min(Long.MAX_VALUE / Math.max(1, stages * copies), batchBytes) * stages * copies;
    }

    /// Refuses what can never run: batches larger than memory, an output that cannot fit on its
    /// disk even at its smallest. (A system larger than a batch is refused by the pipeline's own
    /// check, `Pipeline.check`, which names it; `fitsBatches` says it for a Flink dry run.)
    void check(CommandSpec spec, Path out, int copies) {
        Preflight.forMemory(spec, memoryBytes(copies), stages + (stages == 1 ? " stage's batch" : " stages' batches") + " of "
                + Preflight.bytes(batchBytes), "use a smaller --max-atoms or --max-systems");
        Preflight.forOutput(spec, "option '--out' " + out + " (at least, " + String.format(Locale.ROOT, "%,d", atoms) + " atoms)", out,
                leastBytes);
    }

    /// Refuses input whose largest system no batch of `maxAtoms` atoms can ever hold.
    void fitsBatches(CommandSpec spec, long maxAtoms) {
        if (largest > maxAtoms) {
            throw new ParameterException(spec.commandLine(), String.format(Locale.ROOT, "a system (atoms %,d) is larger than a stage can ever "
                    + "hold: a batch holds atoms %,d (option '--max-atoms')", largest, maxAtoms));
        }
    }

    /// Prints the plan (`--dry-run`, or when the output may not fit).
    void print(PrintStream o, Path out, int copies) {
        long free = Preflight.usableBytes(out);
        o.printf(Locale.ROOT, "plan: %,d systems, %,d atoms (largest %,d) through %d stage%s; batch columns %s%s; output about %s at %s; "
                + "free: %s on disk, %s of memory%s%n", systems, atoms, largest, stages, stages == 1 ? "" : "s", Preflight.bytes(memoryBytes(copies)),
                copies > 1 ? " (with their host staging)" : "", Preflight.bytes(typicalBytes), out, Preflight.bytes(free),
                Preflight.bytes(Preflight.memoryBytes()), typicalBytes > free ? " (may not fit)" : "");
    }

    /// Whether the output may not fit (then the plan is printed before the run).
    boolean mayNotFit(Path out) {
        return typicalBytes > Preflight.usableBytes(out);
    }
}
