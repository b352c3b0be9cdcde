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

/// `penstock bench relax`: FIRE (ASE-exact) on LJ13/38/55, optionally against ASE's FIRE.
@Command(name = "relax", mixinStandardHelpOptions = true,
        description = "FIRE in ASE-exact mode on perturbed LJ clusters (13, 38, 55 atoms) to fmax 1e-4 and 0.05.")
public final class BenchRelaxCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Option(names = "--peer", description = "also run ASE's FIRE from the same start (python3-ase)")
    boolean peer;

    @Option(names = "--dir", defaultValue = "target/bench", description = "where the start file goes (default: ${DEFAULT-VALUE})")
    Path dir;

    @Override
    public Integer call() throws Exception {
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
