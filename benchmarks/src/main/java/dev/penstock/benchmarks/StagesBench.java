package dev.penstock.benchmarks;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.device.RelaxKernels;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/// The `stages` workload (docs/workloads.md): a three-stage chain `fire | langevin | nve` over LJ
/// clusters of 13…147 atoms (the `inflight` clusters), each stage on its own worker under one
/// atom budget per batch — device stages on `CpuDevice`, as `simulate` runs them (`DeviceStages`:
/// each stage's batch packed, stepped by batch kernels split over `kernelThreads`, the model
/// computing each system) — against each stage run alone over the same inputs in the same run.
///
/// - `ratio_vs_slowest_stage`: the slowest stage's time alone over the chain's time — 1.0 when
///   the chain costs only its bottleneck (every other stage hidden behind it). On a machine
///   with fewer cores than stages the stages share cores, so the sum of their times bounds it too
///   (`ratio_vs_sum_over_cores` says how close the chain comes to that bound).
/// - `handoff_p50_us`, `handoff_p99_us`: from the step a system exits a stage to the step the next
///   stage admits it, over every hand-off of the chain (`Summary.StageReport.handoffNs`): waiting
///   for room in a busy downstream batch included. `idle_handoff_*`: the same over admissions into
///   a stage that was empty, waiting for input — the cost of the hand-off itself.
/// - `max_energy_diff`: every system's final energy, chain against the stages alone (0: the
///   chain changes no result).
///
/// Run: `./penstock bench stages [--clusters 2048] [--max-atoms 2000] [--steps 100] [--mode sync] [--threads N]`.
public final class StagesBench {
    private static final double FMAX = 0.01;
    private static final double LANGEVIN_DT = 0.005; // τ, also nve's
    private static final double LANGEVIN_KT = 0.1;
    private static final double LANGEVIN_GAMMA = 1.0;
    private static final long SEED = 11;

    private final PrintStream out;
    private final int clusters;
    private final long maxAtoms;
    private final int mdSteps;
    private final Pipeline.Mode mode;
    private final int kernelThreads;

    /// `clusters` clusters, `maxAtoms` atoms per batch, `mdSteps` steps of each MD stage, kernels
    /// split over `kernelThreads` in each stage.
    public StagesBench(PrintStream out, int clusters, long maxAtoms, int mdSteps, Pipeline.Mode mode, int kernelThreads) {
        if (clusters < 1 || maxAtoms < 147 || mdSteps < 1 || kernelThreads < 1) {
            throw new IllegalArgumentException("bench stages: need at least 1 cluster, --max-atoms ≥ 147 (the largest cluster), "
                    + "--steps ≥ 1 and --threads ≥ 1, got " + clusters + ", " + maxAtoms + ", " + mdSteps + ", " + kernelThreads);
        }
        this.out = out;
        this.clusters = clusters;
        this.maxAtoms = maxAtoms;
        this.mdSteps = mdSteps;
        this.mode = mode;
        this.kernelThreads = kernelThreads;
    }

    /// The first `count` clusters of the `inflight` workload.
    private List<AtomicSystem> systems(int count) {
        return new InflightBench(new PrintStream(PrintStream.nullOutputStream()), count, maxAtoms).systems();
    }

    /// Stage `k` of the chain on `device`, with its own model instance (its batch packed, stepped
    /// by batch kernels split over `kernelThreads`).
    private Stage<AtomicSystem> stage(int k, Device device) {
        LennardJones lj = new LennardJones(1, 1, 2.5, true);
        Convergence rule = Convergence.of(FMAX, 5000);
        Function<Device, RelaxKernels> kernels = d -> new CpuRelaxKernels(kernelThreads);
        return switch (k) {
            case 0 -> DeviceStages.fire(rule, lj, device, kernels);
            case 1 -> DeviceStages.langevin(LANGEVIN_DT, LANGEVIN_KT, LANGEVIN_GAMMA, SEED, mdSteps, lj, device, kernels,
                    Double.POSITIVE_INFINITY);
            default -> DeviceStages.nve(LANGEVIN_DT, mdSteps, lj, device, kernels);
        };
    }

    private Pipeline<AtomicSystem> configure(Pipeline<AtomicSystem> p, List<AtomicSystem> in, MemorySink<AtomicSystem> sink) {
        return p.sizer(Systems.withListRadius(2.5)).batchCapacity(Capacity.of(Long.MAX_VALUE, maxAtoms, Long.MAX_VALUE))
                .mode(mode).samples(in).results(sink);
    }

    private record Timed(double seconds, Summary<AtomicSystem> summary, List<AtomicSystem> out) {
    }

    private Timed chain(List<AtomicSystem> in, Device device) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("chain");
        long t0 = System.nanoTime();
        Summary<AtomicSystem> s;
        try (Pipeline<AtomicSystem> p = configure(stage(0, device).then(stage(1, device)).then(stage(2, device)), in, sink)) {
            s = p.run();
        }
        return new Timed((System.nanoTime() - t0) / 1e9, s, sink.samples());
    }

    private Timed alone(int k, List<AtomicSystem> in, Device device) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("stage " + k);
        long t0 = System.nanoTime();
        Summary<AtomicSystem> s;
        try (Pipeline<AtomicSystem> p = configure(Pipeline.of(stage(k, device)), in, sink)) {
            s = p.run();
        }
        return new Timed((System.nanoTime() - t0) / 1e9, s, sink.samples());
    }

    /// Runs the chain and each stage alone on `CpuDevice`; returns the figures.
    public Map<String, String> run() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("clusters", Integer.toString(clusters));
        f.put("mode", mode.name().toLowerCase(Locale.ROOT));
        f.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        f.put("kernel_threads", Integer.toString(kernelThreads));
        try (CpuDevice cpu = new CpuDevice()) {
            warm(cpu);
            measure(cpu, f);
        }
        return f;
    }

    /// A JIT warm-up of every stage of the chain on `device`: the chain over
    /// the first 256 clusters, twice.
    private void warm(Device device) {
        for (int i = 0; i < 2; i++) {
            chain(systems(Math.min(clusters, 256)), device);
        }
    }

    /// The chain and its stages alone on `device`, into `f`.
    private void measure(Device device, Map<String, String> f) {
        Timed whole = chain(systems(clusters), device);
        Timed[] parts = new Timed[3];
        List<AtomicSystem> in = systems(clusters);
        for (int k = 0; k < 3; k++) {
            parts[k] = alone(k, in, device);
            in = parts[k].out();
        }
        Map<Long, Double> aloneEnergy = new HashMap<>();
        for (AtomicSystem a : parts[2].out()) {
            aloneEnergy.put(a.id(), a.energy());
        }
        double diff = whole.out().size() == aloneEnergy.size() ? 0 : Double.POSITIVE_INFINITY;
        for (AtomicSystem a : whole.out()) {
            Double e = aloneEnergy.get(a.id());
            diff = Math.max(diff, e == null ? Double.POSITIVE_INFINITY : Math.abs(a.energy() - e));
        }
        long[] handoffs = whole.summary().stages().stream().flatMapToLong(r -> java.util.Arrays.stream(r.handoffNs())).sorted().toArray();
        long[] idle = whole.summary().stages().stream().flatMapToLong(r -> java.util.Arrays.stream(r.idleHandoffNs())).sorted().toArray();
        double slowest = Math.max(parts[0].seconds(), Math.max(parts[1].seconds(), parts[2].seconds()));
        double sum = parts[0].seconds() + parts[1].seconds() + parts[2].seconds();
        int cores = Runtime.getRuntime().availableProcessors();
        double bound = Math.max(slowest, sum / Math.min(cores, 3));
        out.printf(Locale.ROOT, "%s%d clusters, mode %s, %d cores: chain %.2f s; alone: fire %.2f s, langevin %.2f s, nve %.2f s%n",
                "on " + device.name() + ": ", clusters, mode, cores, whole.seconds(), parts[0].seconds(),
                parts[1].seconds(), parts[2].seconds());
        f.put("wall_chain_s", String.format(Locale.ROOT, "%.3f", whole.seconds()));
        f.put("wall_fire_alone_s", String.format(Locale.ROOT, "%.3f", parts[0].seconds()));
        f.put("wall_langevin_alone_s", String.format(Locale.ROOT, "%.3f", parts[1].seconds()));
        f.put("wall_nve_alone_s", String.format(Locale.ROOT, "%.3f", parts[2].seconds()));
        f.put("handoffs", Integer.toString(handoffs.length));
        f.put("handoff_p50_us", String.format(Locale.ROOT, "%.1f", Summary.percentileUs(handoffs, 0.50)));
        f.put("handoff_p99_us", String.format(Locale.ROOT, "%.1f", Summary.percentileUs(handoffs, 0.99)));
        f.put("idle_handoffs", Integer.toString(idle.length));
        f.put("idle_handoff_p50_us", String.format(Locale.ROOT, "%.1f", Summary.percentileUs(idle, 0.50)));
        f.put("idle_handoff_p99_us", String.format(Locale.ROOT, "%.1f", Summary.percentileUs(idle, 0.99)));
        f.put("max_energy_diff", String.format(Locale.ROOT, "%.3g", diff));
        f.put("ratio_vs_sum_over_cores", String.format(Locale.ROOT, "%.3f", bound / whole.seconds()));
        f.put("ratio_vs_slowest_stage", String.format(Locale.ROOT, "%.3f", slowest / whole.seconds()));
    }
}
