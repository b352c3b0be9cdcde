package dev.penstock.cli;

import dev.penstock.benchmarks.PumpBenchmark;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench pump`: the JMH `PumpBenchmark` (pump vs `ArrayBlockingQueue`) with `-prof gc`.
@Command(name = "pump", mixinStandardHelpOptions = true,
        description = "JMH: handoff cost and allocation per item, Pump vs ArrayBlockingQueue.")
public final class BenchPumpCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Option(names = "--forks", description = "JMH forks (default: ${DEFAULT-VALUE})", defaultValue = "1")
    int forks;

    @Override
    public Integer call() throws Exception {
        Options opts = new OptionsBuilder()
                .include(PumpBenchmark.class.getName())
                .addProfiler(GCProfiler.class)
                .forks(forks)
                .build();
        // JMH's own report goes where the progress goes (stderr under --json)
        Collection<RunResult> results = new Runner(opts, org.openjdk.jmh.runner.format.OutputFormatFactory.createFormatInstance(
                output.progress(), org.openjdk.jmh.runner.options.VerboseMode.NORMAL)).run();
        Map<String, String> figures = new LinkedHashMap<>();
        double pumpNs = Double.NaN;
        double abqNs = Double.NaN;
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            String label = name.endsWith(".pump") ? "pump" : "abq";
            double ns = r.getPrimaryResult().getScore();
            var alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            if (label.equals("pump")) {
                pumpNs = ns;
            } else {
                abqNs = ns;
            }
            figures.put(label + "_ns_per_item", String.format(Locale.ROOT, "%.1f", ns));
            if (alloc != null) {
                figures.put(label + "_bytes_per_item", String.format(Locale.ROOT, "%.3f", alloc.getScore()));
            }
        }
        figures.put("ratio_vs_abq", String.format(Locale.ROOT, "%.3f", abqNs / pumpNs));
        output.print(figures);
        return 0;
    }
}
