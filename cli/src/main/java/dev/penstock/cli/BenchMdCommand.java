package dev.penstock.cli;

import dev.penstock.benchmarks.MdBench;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench md`: the LJ liquid of LAMMPS's bench/in.lj, or a real material (`--potential
/// eam|tersoff`), against LAMMPS itself.
@Command(name = "md", mixinStandardHelpOptions = true,
        description = "100 NVE steps from LAMMPS's own start, energy and speed against LAMMPS: the LJ liquid (bench/in.lj), "
                + "or with --potential eam (bench/in.eam: Cu_u3.eam, 32,000 atoms) or tersoff (Si.tersoff, 32,768 atoms).")
public final class BenchMdCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    JsonFigures output;

    @Option(names = "--atoms", defaultValue = "32000", description = "4000 or 32000 (4·k³) (default: ${DEFAULT-VALUE})")
    int atoms;

    @Option(names = "--threads", split = ",", defaultValue = "1,2",
            description = "thread counts; LAMMPS runs with mpirun -np T (default: ${DEFAULT-VALUE})")
    int[] threads;

    @Option(names = "--potential", defaultValue = "lj", description = "lj (the LJ liquid; --atoms and --threads apply), eam or tersoff "
            + "(fixed sizes; --threads applies) (default: ${DEFAULT-VALUE})")
    String potential;

    @Option(names = "--dir", defaultValue = "target/bench", description = "where LAMMPS runs (default: ${DEFAULT-VALUE})")
    Path dir;

    @Override
    public Integer call() throws Exception {
        if (!java.util.Set.of("lj", "eam", "tersoff").contains(potential)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "option '--potential': expected lj, eam or tersoff, got '"
                    + potential + "'");
        }
        if (!potential.equals("lj")) {
            output.print(new dev.penstock.benchmarks.MaterialsMdBench(potential, dir, output.progress()).threads(threads).run());
            return 0;
        }
        output.print(new MdBench(atoms, dir, output.progress()).threads(threads).run());
        return 0;
    }
}
