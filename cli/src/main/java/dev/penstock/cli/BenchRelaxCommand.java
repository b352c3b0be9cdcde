package dev.penstock.cli;

import dev.penstock.benchmarks.Peers;
import dev.penstock.benchmarks.RelaxBench;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench relax`: FIRE (ASE-exact) on LJ13/38/55, optionally against ASE's FIRE; with
/// `--potential eam`, the README's copper nanoparticles against LAMMPS's `min_style fire`.
@Command(name = "relax", mixinStandardHelpOptions = true,
        description = {"FIRE in ASE-exact mode on perturbed LJ clusters (13, 38, 55 atoms) to fmax 1e-4 and 0.05; or, with --potential "
                + "eam, the README's 16 copper nanoparticles (Cu_u3.eam) to fmax 0.01 by FIRE 2.0 and FIRE against LAMMPS's minimize "
                + "with min_style fire."})
public final class BenchRelaxCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    JsonFigures output;

    @Option(names = "--peer", description = "also run ASE's FIRE from the same start (python3-ase)")
    boolean peer;

    @Option(names = "--potential", defaultValue = "lj", description = "lj (the LJ clusters) or eam (copper nanoparticles against LAMMPS) "
            + "(default: ${DEFAULT-VALUE})")
    String potential;

    @Option(names = "--particles", defaultValue = "examples/copper-nanoparticles.xyz",
            description = "the nanoparticles of --potential eam (default: ${DEFAULT-VALUE})")
    Path particles;

    @Option(names = "--dir", defaultValue = "target/bench", description = "where the start file goes (default: ${DEFAULT-VALUE})")
    Path dir;

    @Override
    public Integer call() throws Exception {
        if (!potential.equals("lj") && !potential.equals("eam")) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "option '--potential': expected lj or eam, got '"
                    + potential + "'");
        }
        if (potential.equals("eam")) {
            if (!java.nio.file.Files.isRegularFile(particles)) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "option '--particles': " + particles
                        + " is not a file (run from the project's root, or name the file)");
            }
            output.print(new dev.penstock.benchmarks.MaterialsRelaxBench(particles, dir, output.progress()).run());
            return 0;
        }
        RelaxBench bench = new RelaxBench(dir, output.progress());
        Map<String, Double> ase = null;
        if (peer) {
            Path start = bench.writeStarts();
            ase = Peers.run(Peers.script("relax_ase.py"), List.of(start.toString()), output.progress());
        }
        output.print(bench.run(ase));
        return 0;
    }
}
