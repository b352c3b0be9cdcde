package dev.penstock.cli;

import dev.penstock.benchmarks.MdBench;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench md`: the LJ liquid of LAMMPS's bench/in.lj against LAMMPS itself.
@Command(name = "md", mixinStandardHelpOptions = true,
        description = "LJ liquid (bench/in.lj), 100 NVE steps from LAMMPS's own start, energy and speed against LAMMPS.")
public final class BenchMdCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Option(names = "--atoms", defaultValue = "32000", description = "4000 or 32000 (4·k³) (default: ${DEFAULT-VALUE})")
    int atoms;

    @Option(names = "--threads", split = ",", defaultValue = "1,2",
            description = "thread counts; LAMMPS runs with mpirun -np T (default: ${DEFAULT-VALUE})")
    int[] threads;

    @Option(names = "--dir", defaultValue = "target/bench", description = "where LAMMPS runs (default: ${DEFAULT-VALUE})")
    Path dir;

    @Override
    public Integer call() throws Exception {
        output.print(new MdBench(atoms, dir, output.progress()).threads(threads).run());
        return 0;
    }
}
