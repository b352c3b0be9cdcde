package dev.penstock.cli;

import dev.penstock.metrics.PenstockMetrics;
import dev.penstock.atoms.integrate.Units;
import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.io.ExtXyzSink;
import dev.penstock.atoms.io.LammpsDataSink;
import dev.penstock.atoms.io.SnapshotHook;
import dev.penstock.atoms.stage.History;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.flink.FlinkRunner;
import dev.penstock.formats.zarr.ZarrFormat;
import dev.penstock.io.BadInputException;
import dev.penstock.io.OutputException;
import dev.penstock.io.OutputSet;
import dev.penstock.io.PendingOutput;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.PipelineException;
import dev.penstock.stage.Sink;
import dev.penstock.stage.Summary;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/// `penstock simulate INPUT.xyz --pipeline "…" --potential "…" --out OUT.xyz|OUT.zarr`: atomic
/// systems through a stage pipeline (`+` fuses, `|` chains), with in-flight refill of the first
/// stage, a progress line per stage and a summary of where the time went.
///
/// Why one file over 400 lines: picocli binds the command's thirty options to this class's
/// fields, and the up-front checks, the choice of runner and the wiring of hooks, sinks and
/// meters read them; the runs themselves live elsewhere (`PipelineSpec`, `SimulateDevice`,
/// `FlinkSimulation`, `SystemsZarrSink`, `ExtXyzSink`).
@Command(name = "simulate", mixinStandardHelpOptions = true, abbreviateSynopsis = true,
        footer = {"%nExamples:",
            "  penstock simulate examples/argon-clusters.xyz \\",
            "      --pipeline \"fire(fmax=0.005) + langevin(T=40, dt=5, steps=2000)\" \\",
            "      --potential \"lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)\" --max-atoms 600 \\",
            "      --out argon.xyz",
            "  penstock simulate examples/copper-nanoparticles.xyz \\",
            "      --pipeline \"fire(fmax=0.01)\" \\",
            "      --potential \"eam(file=/usr/share/lammps/potentials/Cu_u3.eam)\" \\",
            "      --threads 2 --metrics-port 9464 --out copper.zarr",
            "  penstock simulate --list   (methods, potentials: arguments, defaults, units)", ""},
        description = "Relax and simulate the systems of an extended XYZ file through a stage pipeline.")
public final class SimulateCommand implements Callable<Integer>, OptionGroups {
    @Override
    public java.util.List<String> optionGroups() {
        return java.util.List.of("Output", "Pipeline and potential", "Batches, threads and device", "Runner (local or Flink)", "Reporting");
    }

    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Mixin
    Verbosity verbosity;

    @Parameters(index = "0", paramLabel = "INPUT.xyz", description = "systems to simulate (extended XYZ, as ASE writes), or one LAMMPS data "
            + "file (.data, .lmp: write_data's, atom style atomic, charge or full, metal units)")
    Path input;

    @Option(names = "--types", paramLabel = "El1,El2,…", split = ",", order = 103, description = "the elements of a LAMMPS data file's "
            + "atom types 1, 2, … (default: each Masses line's comment, else the element of its mass)")
    List<String> types;

    @Option(names = "--pipeline", paramLabel = "STAGES", order = 201, required = true, description = "stages, e.g. \"fire(fmax=0.05) + langevin(T=300, dt=1, steps=2000) "
            + "| nve(dt=1, steps=1000)\": '+' fuses (one worker), '|' chains (a worker each); units eV, Å, fs, K")
    String pipeline;

    @Option(names = "--potential", paramLabel = "SPEC", order = 202, required = true, description = "lj(epsilon=, sigma=, cutoff=), morse(depth=, a=, r0=, cutoff=) eam(file=PATH: a LAMMPS "
            + "*.eam, *.eam.alloy or *.eam.fs file) sw(file=PATH: a LAMMPS *.sw file) or tersoff(file=PATH: a LAMMPS *.tersoff file)")
    String potential;

    @Option(names = "--out", paramLabel = "OUT", order = 101, required = true, description = "finished systems: an extended XYZ file (.xyz/.extxyz), "
            + "a .zarr directory, or a LAMMPS data file (.data/.lmp: one periodic system, metal units)")
    Path out;

    @Option(names = "--max-atoms", paramLabel = "N", order = 303, defaultValue = "4096", description = "atoms per stage batch (default: ${DEFAULT-VALUE})")
    long maxAtoms;

    @Option(names = "--max-systems", paramLabel = "N", order = 304, defaultValue = "256", description = "systems per stage batch (default: ${DEFAULT-VALUE})")
    long maxSystems;

    @Option(names = "--max-edges", paramLabel = "N", order = 305, description = "neighbour pairs per stage batch (default: no limit)")
    Long maxEdges;

    @Option(names = "--refill-every", paramLabel = "K", order = 306, defaultValue = "10", description = "refill the first stage every k steps (default: ${DEFAULT-VALUE})")
    int refillEvery;

    @Option(names = "--mode", paramLabel = "MODE", order = 307, defaultValue = "sync", description = "sync, async-receive or fully-async (same results; default: ${DEFAULT-VALUE})")
    String mode;

    @Option(names = "--seed", paramLabel = "N", order = 203, defaultValue = "0", description = "seed of the Langevin noise (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--threads", paramLabel = "N", order = 302, description = "threads each stage's steps are split over (local runner; default: the cores "
            + "divided by the chained stages, at least 1; the results do not depend on it)")
    Integer threads;

    @Option(names = "--device", paramLabel = "cpu|cuda[:N]", order = 301, defaultValue = "cpu", description = "where each stage keeps its systems, packed, "
            + "and steps them with batch kernels: cpu or cuda[:N] (every method; lj, morse and eam on either, sw and tersoff on cpu) (default: ${DEFAULT-VALUE})")
    String device;

    @Option(names = "--runner", paramLabel = "local|flink", order = 401, defaultValue = "local", description = "local (threads in this JVM) or flink (a Flink job on the "
            + "embedded MiniCluster; results committed exactly once per checkpoint) (default: ${DEFAULT-VALUE})")
    String runner;

    @Option(names = "--parallelism", paramLabel = "N", order = 402, defaultValue = "1", split = ",", description = "with --runner flink: instances of each stage "
            + "(devices per stage): one number, or one per stage like 2,1 (default: ${DEFAULT-VALUE})")
    List<Integer> parallelism;

    @Option(names = "--checkpoint-interval", paramLabel = "MS", order = 403, defaultValue = "1000", description = "with --runner flink: ms between checkpoints "
            + "(default: ${DEFAULT-VALUE}; 0: none)")
    long checkpointMs;

    @Option(names = "--restart-attempts", paramLabel = "N", order = 404, description = "with --runner flink: restarts after a failure (default: the cluster's "
            + "restart strategy; the embedded MiniCluster restarts 3 times)")
    Integer restartAttempts;

    @Option(names = "--restart-delay", order = 405, paramLabel = "MS", description = "with --runner flink: ms before each restart (default: the "
            + "cluster's; 200 on the embedded MiniCluster; setting it alone keeps 3 attempts)")
    Long restartDelayMs;

    @Option(names = "--max-step", order = 204, paramLabel = "Å", defaultValue = "1.0", description = "quarantine a system with an atom that "
            + "moves more than this many Å in one step (a time step far too large; default: ${DEFAULT-VALUE})")
    double maxStepA;

    @Option(names = "--dry-run", order = 505, description = "check everything (arguments, the systems against the batches and the "
            + "potential, memory, disk) and print the plan without creating any file")
    boolean dryRun;

    @Option(names = "--debug", order = 504, description = "print buffer populations per step at the end, and a stack trace with any error")
    boolean debug;

    @Option(names = "--order", paramLabel = "input|completion", order = 102, description = "order of the systems in OUT: input (as they came in; the default) or "
            + "completion (as they finished; on Flink: as the parts were committed)")
    String order;

    @Option(names = "--zarr-format", order = 103, paramLabel = "2|3", defaultValue = "2", description = "Zarr specification of a .zarr OUT: 2 (zarr-python "
            + "2.x reads it) or 3 (zarr-python 3's default) (default: ${DEFAULT-VALUE})")
    String zarrFormat;

    @Option(names = "--metrics-port", order = 503, paramLabel = "PORT", description = "serve the run's meters (steps, exits, quarantines, "
            + "step intervals and batch counts per stage, and the JVM's) as Prometheus text at http://127.0.0.1:PORT/metrics while it "
            + "runs (0: any free port; local runner)")
    Integer metricsPort;

    @Option(names = "--json", order = 501, description = "print the run's summary as one JSON object on stdout (the rest goes to stderr); "
            + "local runner")
    boolean json;

    @SuppressWarnings("deprecation") // picocli's `help`: like --help, it needs none of the required options
    @Option(names = "--list", order = 205, help = true, description = "list the methods and potentials with their arguments, defaults and units, "
            + "and exit")
    boolean list;

    @Option(names = "--timeline", order = 502, paramLabel = "FILE.png", description = "draw where the time went: a lane per stage worker with its "
            + "steps, its waits for input and its waits for room downstream, over wall time (local runner)")
    Path timelinePng;

    @Option(names = "--snapshots", order = 104, paramLabel = "DIR", description = "write DIR/converged.xyz (each system as it graduates from "
            + "each stage) and, with --snapshot-every, DIR/stage-<i>.xyz")
    Path snapshots;

    @Option(names = "--snapshot-every", paramLabel = "K", order = 105, defaultValue = "0", description = "snapshot every system of a stage every K steps, labelled with "
            + "its sub-stage and the steps it has taken there (step=0: its input) (default: off)")
    int snapshotEvery;

    /// The pipeline mode named by `--mode` (sync, async-receive, fully-async), or a clear error.
    static Pipeline.Mode mode(String text, picocli.CommandLine cl) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "sync" -> Pipeline.Mode.SYNC;
            case "async-receive" -> Pipeline.Mode.ASYNC_RECEIVE;
            case "fully-async" -> Pipeline.Mode.FULLY_ASYNC;
            default -> throw new ParameterException(cl, "option '--mode': expected sync, async-receive or fully-async, got '" + text + "'");
        };
    }

    @Override
    public Integer call() throws Exception {
        if (list) {
            System.out.print(PipelineSpec.catalog());
            return ExitCodes.OK;
        }
        if (!Files.isRegularFile(input)) {
            throw new ParameterException(spec.commandLine(), "INPUT " + input + (Files.exists(input) ? ": not a file" : ": no such file"));
        }
        try {
            PendingOutput.refuseInputs(out, List.of(input));
            PendingOutput.refuseInputs(quarantinedFile(), List.of(input));
        } catch (OutputException e) {
            throw new ParameterException(spec.commandLine(), "option '--out': " + e.getMessage());
        }
        if (timelinePng != null) {
            try {
                PendingOutput.refuseInputs(timelinePng, List.of(input, out));
            } catch (OutputException e) {
                throw new ParameterException(spec.commandLine(), "option '--timeline': " + e.getMessage());
            }
            if (!timelinePng.toString().endsWith(".png") || Files.isDirectory(timelinePng)) {
                throw new ParameterException(spec.commandLine(), "option '--timeline' " + timelinePng + ": expected a .png file");
            }
        }
        String o = out.toString();
        boolean zarr = o.endsWith(".zarr");
        boolean data = o.endsWith(".data") || o.endsWith(".lmp");
        if (!zarr && !data && !o.endsWith(".xyz") && !o.endsWith(".extxyz")) {
            throw new ParameterException(spec.commandLine(), "option '--out' " + out + ": expected a .xyz/.extxyz file, a .zarr directory or a "
                    + "LAMMPS data file (.data, .lmp: one periodic system)");
        }
        ZarrFormat format;
        try {
            format = ZarrFormat.parse(zarrFormat);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "option '--zarr-format': " + e.getMessage());
        }
        if (!(maxStepA > 0) || Double.isInfinite(maxStepA)) {
            throw new ParameterException(spec.commandLine(), "option '--max-step' must be a number of Å > 0, got " + maxStepA);
        }
        atLeastOne("--max-atoms", maxAtoms);
        atLeastOne("--max-systems", maxSystems);
        atLeastOne("--max-edges", maxEdges == null ? 1 : maxEdges);
        atLeastOne("--refill-every", refillEvery);
        if (snapshotEvery < 0) {
            throw new ParameterException(spec.commandLine(), "option '--snapshot-every' must be ≥ 0, got " + snapshotEvery);
        }
        Pipeline.Mode m = mode(mode, spec.commandLine());
        Supplier<? extends dev.penstock.atoms.potential.Model> model;
        List<List<PipelineSpec.Call>> stages;
        try {
            model = PipelineSpec.potential(potential);
            stages = PipelineSpec.parse(pipeline);
            for (List<PipelineSpec.Call> fused : stages) {
                for (PipelineSpec.Call c : fused) {
                    PipelineSpec.check(c); // every error before anything runs
                }
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<AtomicSystem> systems;
        OutputSet.finishInterrupted(input); // an earlier run's output it was committing when killed: finished first
        String inputName = input.getFileName().toString().toLowerCase(Locale.ROOT);
        if (inputName.endsWith(".data") || inputName.endsWith(".lmp")) {
            systems = List.of(LammpsDataInput.read(input, types, spec.commandLine()));
        } else {
            if (types != null) {
                throw new ParameterException(spec.commandLine(), "option '--types' names a LAMMPS data file's types; " + input
                        + " is extended XYZ (its atoms name their elements)");
            }
            try (BufferedReader in = Files.newBufferedReader(input)) {
                systems = ExtXyz.read(in, input);
            } catch (java.nio.charset.CharacterCodingException binary) {
                throw new BadInputException(input, "INPUT " + input + ": not extended XYZ text" + InputKinds.lookslike(input)
                        + "; simulate reads extended XYZ (.xyz, .extxyz: ase.io.write(path, frames, format='extxyz') writes it) and "
                        + "LAMMPS data files (.data, .lmp)", binary);
            }
        }
        systems.forEach(History::fresh); // an earlier run's outcome is not this run's
        if (data) { // one periodic system in LAMMPS's box form, checked before anything runs
            if (systems.size() != 1) {
                throw new ParameterException(spec.commandLine(), "option '--out' " + out + ": a LAMMPS data file holds one system; " + input
                        + " has " + systems.size() + " (write .xyz or .zarr)");
            }
            String why = dev.penstock.atoms.io.LammpsData.unwritable(systems.getFirst());
            if (why != null) {
                throw new ParameterException(spec.commandLine(), "option '--out' " + out + ": " + why);
            }
        }
        if (order != null && !order.equals("input") && !order.equals("completion")) {
            throw new ParameterException(spec.commandLine(), "option '--order': expected input or completion, got '" + order + "'");
        }
        verbosity.apply(spec.commandLine());
        PrintStream po = verbosity.info(json);
        po.printf(Locale.ROOT, "%s: %,d systems, %,d atoms%n", input, systems.size(), systems.stream().mapToLong(AtomicSystem::atoms).sum());
        verbosity.settings(po, String.format(Locale.ROOT, "runner %s, mode %s, device %s, threads %s, batches of at most %d systems, %d atoms, %s "
                + "edges, refill every %d steps, seed %d, max step %s Å, output %s%s, order %s", runner, mode, device, threads == null ? "default (cores / chained stages)" : threads, maxSystems, maxAtoms,
                maxEdges == null ? "any" : maxEdges, refillEvery, seed, maxStepA, out, zarr ? " (Zarr v" + format.number() + ")" : "",
                order == null ? "input" : order));
        // before anything is created: systems that can never fit, memory, the output's disk
        SimulatePlan plan = SimulatePlan.of(systems, stages.size(), maxSystems, maxAtoms, zarr);
        plan.check(spec, out, 2);
        if (dryRun || plan.mayNotFit(out)) {
            plan.print(po, out, 2);
        }
        if (runner.equalsIgnoreCase("flink")) {
            if (!device.equalsIgnoreCase("cpu")) {
                throw new ParameterException(spec.commandLine(), "option '--device': --runner flink runs device stages on cpu only for now "
                        + "(each task its own CpuDevice), got '" + device + "'");
            }
            if (json || timelinePng != null) {
                throw new ParameterException(spec.commandLine(), "options '--json' and '--timeline' are not available with "
                        + "--runner flink yet (local runner only)");
            }
            if (zarr || data || snapshots != null || m != Pipeline.Mode.SYNC) {
                throw new ParameterException(spec.commandLine(), "--runner flink writes extended XYZ only, without --snapshots or --mode");
            }
            if (parallelism.stream().anyMatch(p -> p < 1) || checkpointMs < 0) {
                throw new ParameterException(spec.commandLine(), "options '--parallelism' must be ≥ 1 and '--checkpoint-interval' ≥ 0, got "
                        + parallelism + ", " + checkpointMs);
            }
            long edges = maxEdges == null ? Long.MAX_VALUE : maxEdges;
            if (dryRun) {
                plan.fitsBatches(spec, maxAtoms);
                po.println("dry run: the systems fit the batches; the Flink job checks them against the potential when it starts; nothing "
                        + "was created");
                return ExitCodes.OK;
            }
            try {
                java.util.Optional<FlinkRunner.Restarts> restarts = restartAttempts == null && restartDelayMs == null
                        ? java.util.Optional.empty()
                        : java.util.Optional.of(new FlinkRunner.Restarts(restartAttempts == null ? FlinkRunner.Restarts.EMBEDDED.attempts()
                                : restartAttempts, restartDelayMs == null ? FlinkRunner.Restarts.EMBEDDED.delay()
                                : java.time.Duration.ofMillis(restartDelayMs)));
                int instances = stages.size() * parallelism.stream().mapToInt(Integer::intValue).max().orElse(1);
                int kernelThreads = threads != null ? threads : Math.max(1, Runtime.getRuntime().availableProcessors() / instances);
                if (kernelThreads < 1) {
                    throw new ParameterException(spec.commandLine(), "option '--threads' must be at least 1, got " + kernelThreads);
                }
                return FlinkSimulation.run(po, systems, pipeline, potential, seed, new long[] {maxSystems, maxAtoms, edges}, parallelism,
                        java.time.Duration.ofMillis(checkpointMs), restarts, out, kernelThreads, maxStepA, !"completion".equals(order));
            } catch (IllegalArgumentException e) {
                System.err.println("penstock simulate: " + e.getMessage());
                return 2;
            } catch (OutputException e) {
                throw e;
            } catch (Exception e) {
                // a full disk in a task or the join: one line naming OUT, exit 5
                if (UserErrors.userCause(e) instanceof java.io.IOException io && !(io instanceof OutputException)) {
                    throw UserErrors.naming(out, io);
                }
                throw e;
            }
        } else if (!runner.equalsIgnoreCase("local")) {
            throw new ParameterException(spec.commandLine(), "option '--runner': expected local or flink, got '" + runner + "'");
        }
        StageProgress progress = StageProgress.start(stages.size(), systems.size(), verbosity.progress());
        Hook<AtomicSystem> history = History.hook(progress::left);
        Summary<AtomicSystem> summary;
        Outcomes outcomes = new Outcomes();
        SnapshotHook snaps = null; // made once the run is checked: a refusal or a dry run creates nothing
        dev.penstock.observe.Timeline timeline = timelinePng == null ? null : new dev.penstock.observe.Timeline();
        // by default the cores are shared out between the chained stages (each stage's worker is
        // busy too: more threads than cores would spin against each other)
        int evalThreads = threads == null ? Math.max(1, Runtime.getRuntime().availableProcessors() / stages.size()) : threads;
        if (evalThreads < 1) {
            throw new ParameterException(spec.commandLine(), "option '--threads' must be at least 1, got " + evalThreads);
        }
        SimulateDevice dev;
        Pipeline<AtomicSystem> built;
        try {
            dev = SimulateDevice.open(device, evalThreads);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        try {
            built = dev.build(stages, model, maxStepA, seed);
        } catch (IllegalArgumentException e) {
            dev.close();
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
            dev.close();
            throw new ParameterException(spec.commandLine(), "option '--metrics-port' must be in [0, 65535], got " + metricsPort);
        }
        try (SimulateDevice closeDevice = dev; Pipeline<AtomicSystem> p = built;
             MetricsServer metrics = metricsPort == null ? null : MetricsServer.start(metricsPort)) {
            long edges = maxEdges == null ? Long.MAX_VALUE : maxEdges;
            DeviceStages.batched(p, model.get(), systems, maxSystems, maxAtoms, edges, refillEvery).mode(m).debug(debug).hook(history);
            if (metrics != null) {
                p.hook(PenstockMetrics.pipeline(metrics.registry(), "simulate", p));
                PenstockMetrics.staging(metrics.registry(), "simulate");
                System.err.println("metrics: " + metrics.url());
            }
            if (timeline != null) {
                p.timeline(timeline);
            }
            p.check(); // before the output exists
            if (dryRun) {
                progress.stop();
                po.println("dry run: every system fits its stages and the potential; nothing was created");
                return ExitCodes.OK;
            }
            if (snapshots != null) {
                snaps = new SnapshotHook(snapshots, snapshotEvery);
                p.hook(snaps);
            }
            // committed by the pipeline when the run succeeds; closed uncommitted after a failure: OUT as it was
            java.util.Map<Long, Integer> position = new java.util.HashMap<>();
            for (int k = 0; k < systems.size(); k++) {
                position.put(systems.get(k).id(), k);
            }
            java.util.function.ToLongFunction<AtomicSystem> rank = "completion".equals(order) ? null
                    : s -> position.getOrDefault(s.id(), Integer.MAX_VALUE);
            // OUT and OUT.quarantined.xyz: checked before anything is written, committed together or not at all
            try (OutputSet outputs = OutputSet.begin(out, zarr, List.of(quarantinedFile()))) {
                try (Sink<AtomicSystem> sink = outcomes.counting(zarr ? new SystemsZarrSink(out, format, rank)
                        : data ? new LammpsDataSink(out, Units.TAU_FS / 1000) : new ExtXyzSink(out, rank))) {
                    summary = p.results(sink).run();
                }
                writeQuarantined(summary);
                outputs.commit();
            }
        } catch (IllegalArgumentException e) {
            progress.stop();
            System.err.println("penstock simulate: " + e.getMessage());
            return 2;
        } catch (PipelineException e) {
            progress.stop();
            if (UserErrors.userCause(e) instanceof java.io.IOException io) {
                throw UserErrors.naming(out, io); // a full disk, a lost directory: one line, exit 5, OUT as it was
            }
            System.err.println("penstock simulate: " + e.getMessage() + "; " + out + " left as it was");
            return ExitCodes.BAD_INPUT;
        } finally {
            if (snaps != null) {
                snaps.close();
            }
        }
        progress.stop();
        new SimulateReport(input, out, quarantinedFile()).print(po, summary, systems.size());
        po.println(outcomes.line());
        if (timeline != null) {
            TimelinePlot.write(timeline, timelinePng, "penstock simulate " + input.getFileName() + " — " + systems.size() + " systems, "
                    + summary.stages().size() + (summary.stages().size() == 1 ? " stage" : " stages"));
            po.println("timeline: " + timelinePng);
        }
        if (json) {
            System.out.println(new SimulateReport(input, out, quarantinedFile()).json(summary, systems, outcomes));
        }
        if (!summary.quarantined().isEmpty()) {
            po.println("quarantined systems written to " + quarantinedFile());
            return ExitCodes.QUARANTINED;
        }
        return outcomes.unconverged() > 0 ? ExitCodes.UNCONVERGED : ExitCodes.OK;
    }

    /// `OUT.quarantined.xyz`: the quarantined systems, kept with their diagnosis (info
    /// `quarantined`) as the Flink runner keeps them; with none, an earlier run's file goes.
    private void writeQuarantined(Summary<AtomicSystem> summary) throws java.io.IOException {
        if (summary.quarantined().isEmpty()) {
            OutputSet.remove(quarantinedFile());
            return;
        }
        List<AtomicSystem> held = summary.quarantined().stream().map(Event::sample).toList();
        PendingOutput.write(quarantinedFile(), tmp -> {
            try (java.io.Writer w = Files.newBufferedWriter(tmp)) {
                ExtXyz.writeLenient(w, held);
            }
        });
    }

    private void atLeastOne(String option, long value) {
        if (value < 1) {
            throw new ParameterException(spec.commandLine(), "option '" + option + "' must be ≥ 1, got " + value);
        }
    }

    /// `OUT.quarantined.xyz`: systems quarantined, each with its diagnosis (info `quarantined`).
    private Path quarantinedFile() {
        return out.resolveSibling(out.getFileName() + ".quarantined.xyz");
    }
}
