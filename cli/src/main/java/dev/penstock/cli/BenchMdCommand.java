package dev.penstock.cli;

import dev.penstock.benchmarks.SimulateMdBench;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench md`: `penstock simulate` of the LJ liquid of LAMMPS's bench/in.lj in argon
/// units, or of a real material (`--potential eam|tersoff`), whole command against LAMMPS's whole
/// command, from LAMMPS's own start.
@Command(name = "md", mixinStandardHelpOptions = true,
        description = "NVE steps through `penstock simulate` from LAMMPS's own start, energy and whole-command time against LAMMPS in "
                + "alternating rounds: the LJ liquid of bench/in.lj in argon units, or with --potential eam (bench/in.eam: Cu_u3.eam, "
                + "32,000 atoms) or tersoff (Si.tersoff, 32,768 atoms).")
public final class BenchMdCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    JsonFigures output;

    @Option(names = "--atoms", description = "atoms of the timed box: 4·k³ (lj, eam) or 8·k³ (tersoff) (default: 32000, tersoff 32768)")
    Integer atoms;

    @Option(names = "--steps", defaultValue = "1000", description = "NVE steps of the timed runs (default: ${DEFAULT-VALUE})")
    int steps;

    @Option(names = "--rounds", defaultValue = "3", description = "alternating rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--threads", split = ",",
            description = "thread counts; LAMMPS runs with mpirun -np T (default: 1,2)")
    int[] threads;

    @Option(names = "--potential", defaultValue = "lj", description = "lj (the LJ liquid; --atoms and --threads apply), eam, tersoff "
            + "(fixed sizes; --threads applies), snap (Ta06A.snap, 2,000 bcc Ta atoms) or snap-quadratic (Cu_Zuo_JPCA2020.quadratic.snap, "
            + "2,048 fcc Cu atoms), both against LAMMPS built with ML-SNAP by scripts/build-lammps-ml.sh (default: ${DEFAULT-VALUE})")
    String potential;

    @Option(names = "--ensemble", defaultValue = "nve", description = "nve, nvt (a Nosé-Hoover chain at the workload's temperature, "
            + "tdamp 100 steps, against LAMMPS's fix nvt) or npt (with the MTK barostat, iso at 1000 bar, pdamp 1000 steps, against "
            + "LAMMPS's fix npt) (default: ${DEFAULT-VALUE})")
    String ensemble;

    @Option(names = "--dir", defaultValue = "target/bench", description = "where LAMMPS runs (default: ${DEFAULT-VALUE})")
    Path dir;

    @Override
    public Integer call() throws Exception {
        if (!java.util.Set.of("lj", "eam", "tersoff", "snap", "snap-quadratic").contains(potential)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "option '--potential': expected lj, eam, tersoff, snap or "
                    + "snap-quadratic, got '" + potential + "'");
        }
        if (threads == null) {
            threads = new int[] {1, 2};
        }
        SimulateMdBench bench;
        try {
            bench = new SimulateMdBench(potential, dir, output.progress()).threads(threads).steps(steps).rounds(rounds).ensemble(ensemble);
            if (atoms != null) {
                bench.atoms(atoms);
            }
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        output.print(bench.run());
        return 0;
    }
}
