package dev.penstock.cli;

import dev.penstock.benchmarks.EncodeBench;
import dev.penstock.benchmarks.Peers;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench encode`: amplitude (and angle, phase, iqp) encoding throughput vs memcpy and NumPy.
@Command(name = "encode", mixinStandardHelpOptions = true,
        description = "Quantum state encoding of float64 rows into complex128 states, 10 and 16 qubits.")
public final class BenchEncodeCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Option(names = "--repeat", description = "timed runs per case; the median is reported (default: ${DEFAULT-VALUE})",
            defaultValue = "5")
    int repeat;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--peer", description = "also run NumPy's amplitude encoding on the same shapes, in alternating rounds")
    boolean peer;

    @Option(names = "--rounds", defaultValue = "5", description = "alternating rounds against the peer (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--python", description = "also time penstock.encode called from Python (the python/ package) against NumPy "
            + "at its best in the same process, alternating rounds, and one 64-row call (the bridge's cost)")
    boolean python;

    @Override
    public Integer call() throws Exception {
        EncodeBench bench = new EncodeBench(repeat, output.progress());
        Map<String, String> figures = new java.util.LinkedHashMap<>(bench.run());
        if (peer) {
            if (rounds < 1) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "option '--rounds' must be at least 1, got " + rounds);
            }
            figures.putAll(bench.againstPeer(rounds, () -> Peers.run(Peers.script("encode_numpy.py"),
                    List.of("--repeat", Integer.toString(repeat)), output.progress())));
        }
        if (python) {
            Map<String, Double> fromPython = Peers.run(Peers.script("encode_python.py"), List.of("--rounds", Integer.toString(Math.max(3, repeat))),
                    output.progress());
            if (fromPython != null) {
                fromPython.forEach((k, v) -> figures.put(k, k.startsWith("ratio") || k.endsWith("_ms") ? String.format(java.util.Locale.ROOT,
                        "%.3f", v) : String.format(java.util.Locale.ROOT, "%.0f", v)));
            }
        }
        output.print(figures);
        return 0;
    }
}
