package dev.penstock.benchmarks;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.device.CpuDevice;
import dev.penstock.atoms.optimize.Fire;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Summary;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/// The `inflight` workload (docs/workloads.md): LJ clusters of 13…147 atoms with mixed difficulty
/// (noise 0.02σ, 0.1σ or 0.2σ) relaxed by FIRE (ASE-exact) to fmax 0.01 under one atom budget,
/// three ways, in one run:
///
/// - **in-flight**: a `Pipeline` stage refilled from the size-aware sampler every step; a
///   system leaves the batch the step it converges. The stage is a device stage on `CpuDevice`,
///   as `simulate` runs it (`DeviceStages.fire`: the batch packed, its kernels split over the
///   threads, the model computing each system).
/// - **static**: batches filled to the budget and evaluated as a whole until their last system
///   converges — fixed shapes, as a device evaluates a static batch: converged systems stay
///   (frozen, still evaluated). The baseline of the `ratio_static_vs_inflight` figure.
/// - **static, skipping**: the same batches, but converged systems are no longer evaluated
///   (the pipeline refilled only when empty). On a CPU, where a step costs in proportion to the
///   atoms still live, this is what static batching costs; reported as
///   `ratio_static_skip_vs_inflight`.
///
/// Every stage way gives every system the same final energy (checked: `max_energy_diff`). Every
/// wall time is the median of five rounds that each run every way in turn — the static baselines
/// under the in-flight runs' protocol (each round's two-thread ratio in
/// `ratio_inflight_<n>t_vs_1t_rounds`).
/// With `--potential snap` the same three ways relax tantalum clusters of 13–55 atoms under
/// `Ta06A.snap` (ZBL + SNAP) to fmax 0.05 eV/Å — a machine-learned potential's evaluation, ~100
/// times a pair potential's per atom, so what a refill saves is worth the most.
/// Run: `./penstock bench inflight [--clusters 512] [--max-atoms 2000] [--potential lj|snap]`.
public final class InflightBench {
    private static final double FMAX = 0.01;
    private static final int BUDGET = 5000;
    /// SNAP's clusters relax to this (eV/Å), the force threshold of most materials studies.
    private static final double SNAP_FMAX = 0.05;
    private static final java.nio.file.Path TA06A = java.nio.file.Path.of("/usr/share/lammps/potentials/Ta06A.snap");

    private final PrintStream out;
    private final int clusters;
    private final long maxAtoms;
    private final boolean snap;
    private final double fmax;
    private final java.util.function.Supplier<Model> model;

    /// A run over `clusters` LJ clusters with `maxAtoms` atoms per batch.
    public InflightBench(PrintStream out, int clusters, long maxAtoms) {
        this(out, clusters, maxAtoms, "lj");
    }

    /// A run over `clusters` clusters of `potential` ("lj", or "snap": tantalum under
    /// `Ta06A.snap`) with `maxAtoms` atoms per batch.
    public InflightBench(PrintStream out, int clusters, long maxAtoms, String potential) {
        if (!potential.equals("lj") && !potential.equals("snap")) {
            throw new IllegalArgumentException("option '--potential': expected lj or snap, got '" + potential + "'");
        }
        this.snap = potential.equals("snap");
        int largest = snap ? 55 : 147;
        if (clusters < 1 || maxAtoms < largest) {
            throw new IllegalArgumentException("bench inflight: need at least 1 cluster and --max-atoms ≥ " + largest + " (the largest cluster), "
                    + "got " + clusters + ", " + maxAtoms);
        }
        this.out = out;
        this.clusters = clusters;
        this.maxAtoms = maxAtoms;
        this.fmax = snap ? SNAP_FMAX : FMAX;
        if (snap) {
            if (!java.nio.file.Files.isReadable(TA06A)) {
                throw new IllegalArgumentException("bench inflight --potential snap: " + TA06A + " is missing (apt-get install lammps-data)");
            }
            java.util.function.Supplier<Model> ta;
            try {
                ta = dev.penstock.atoms.potential.LammpsPairFile.read(TA06A);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            this.model = ta;
        } else {
            this.model = () -> new LennardJones(1, 1, 2.5, true);
        }
    }

    /// The clusters. LJ: sizes uniform in 13…147, noise drawn from {0.02, 0.1, 0.2}σ (seed 2026).
    /// SNAP: tantalum clusters of the 13…55 fcc sites nearest a centre (2.86 Å apart, Ta's
    /// nearest-neighbour distance), each site off by up to 0.05, 0.1 or 0.2 Å (seed 2026).
    public List<AtomicSystem> systems() {
        if (!snap) {
            return Clusters.inflight(clusters, 2026);
        }
        double[] noise = {0.05, 0.1, 0.2};
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(2026);
        List<AtomicSystem> out = new ArrayList<>(clusters);
        for (int k = 0; k < clusters; k++) {
            int n = 13 + rnd.nextInt(43);
            double amplitude = noise[rnd.nextInt(noise.length)];
            java.util.SplittableRandom at = new java.util.SplittableRandom(7_000 + k);
            double[] r = Clusters.fccSites(n, 2.86);
            for (int i = 0; i < r.length; i++) {
                r[i] += at.nextDouble(-amplitude, amplitude);
            }
            int[] z = new int[n];
            double[] m = new double[n];
            java.util.Arrays.fill(z, 73);
            java.util.Arrays.fill(m, dev.penstock.atoms.io.Elements.mass(73));
            out.add(new AtomicSystem(k, r, m, z, dev.penstock.atoms.system.Cell.free()));
        }
        return out;
    }

    /// Alternating rounds of every way (medians): five for LJ, three for SNAP (each ~10× longer).
    private int rounds() {
        return snap ? 3 : 5;
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        java.util.Arrays.sort(c);
        return c[c.length / 2];
    }

    /// Runs the three ways; returns the figures.
    public Map<String, String> run() {
        List<AtomicSystem> warm = new InflightBench(new PrintStream(PrintStream.nullOutputStream()), Math.min(clusters, snap ? 8 : 24), maxAtoms,
                snap ? "snap" : "lj").systems();
        inflight(warm); // JIT warm-up
        inflight(systems(), new HashMap<>(), Integer.MAX_VALUE);
        inflight(systems());
        staticFixed(warm);

        int cores = Runtime.getRuntime().availableProcessors();
        for (int i = 0; i < 2; i++) { // warm-up of the split evaluation, as long as the one-thread run's (a 24-cluster run left
            inflight(systems(), new HashMap<>(), 1, cores); // the two-thread path half compiled: 1.2–1.3× instead of 1.5)
        }
        // every way in each of rounds() alternating rounds, medians: single runs on a shared VM
        // wander by tens of percent, and a ratio of two of them taken minutes apart with them —
        // the baselines (static batches) and the in-flight runs alike
        Map<Long, Double> energyInflight = new HashMap<>();
        Map<Long, Double> energyThreads = new HashMap<>();
        Map<Long, Double> energySkip = new HashMap<>();
        Map<Long, Double> energyStatic = new HashMap<>();
        Summary<AtomicSystem> s = null;
        Summary<AtomicSystem> skip = null;
        long[] staticCounts = null;
        int rounds = rounds();
        double[][] walls = new double[4][rounds]; // in-flight 1 / all threads, skip, static
        StringBuilder ratios = new StringBuilder();
        for (int round = 0; round < rounds; round++) {
            boolean first = round == 0; // its energies, counts and summaries are the ones reported (every round's are the same)
            long t0 = System.nanoTime();
            Summary<AtomicSystem> s1 = inflight(systems(), first ? energyInflight : new HashMap<>(), 1);
            long t1 = System.nanoTime();
            inflight(systems(), first ? energyThreads : new HashMap<>(), 1, cores);
            long t2 = System.nanoTime();
            Summary<AtomicSystem> k1 = inflight(systems(), first ? energySkip : new HashMap<>(), Integer.MAX_VALUE);
            long t3 = System.nanoTime();
            long[] c1 = staticFixed(systems(), first ? energyStatic : new HashMap<>());
            long t4 = System.nanoTime();
            long[] at = {t0, t1, t2, t3, t4};
            for (int w = 0; w < 4; w++) {
                walls[w][round] = (at[w + 1] - at[w]) / 1e9;
            }
            if (first) {
                s = s1;
                skip = k1;
                staticCounts = c1;
            }
            ratios.append(first ? "" : ",").append(String.format(Locale.ROOT, "%.3f", walls[0][round] / walls[1][round]));
            out.printf(Locale.ROOT, "round %d: in-flight %.3f s on 1 thread, %.3f s on %d; static skipping %.3f s, fixed %.3f s%n", round,
                    walls[0][round], walls[1][round], cores, walls[2][round], walls[3][round]);
        }
        double wallInflight = median(walls[0]);
        double wallThreads = median(walls[1]);
        double wallSkip = median(walls[2]);
        double wallStatic = median(walls[3]);

        double diff = 0;
        for (Map.Entry<Long, Double> e : energyInflight.entrySet()) {
            diff = Math.max(diff, Math.abs(e.getValue() - energyStatic.get(e.getKey())));
            diff = Math.max(diff, Math.abs(e.getValue() - energySkip.get(e.getKey())));
            diff = Math.max(diff, Math.abs(e.getValue() - energyThreads.get(e.getKey())));
        }
        Summary.StageReport r = s.stages().getFirst();
        double occStatic = (double) staticCounts[1] / staticCounts[0] / maxAtoms;
        out.printf(Locale.ROOT, "%-22s %10s %12s %14s %10s%n", "way", "wall s", "batch-steps", "atom-steps", "occupancy");
        out.printf(Locale.ROOT, "%-22s %10.2f %12d %14d %9.0f%%%n", "in-flight (every step)", wallInflight, r.steps(),
                r.sampleSteps()[Systems.ATOMS], 100 * r.meanOccupancy(Systems.ATOMS));
        out.printf(Locale.ROOT, "%-22s %10.2f %12d %14d %9.0f%%%n", "static (fixed shapes)", wallStatic, staticCounts[0], staticCounts[1],
                100 * occStatic);
        Summary.StageReport k = skip.stages().getFirst();
        out.printf(Locale.ROOT, "%-22s %10.2f %12d %14d %9.0f%%%n", "static (skip finished)", wallSkip, k.steps(),
                k.sampleSteps()[Systems.ATOMS], 100 * k.meanOccupancy(Systems.ATOMS));
        Map<String, String> f = new LinkedHashMap<>();
        f.put("potential", snap ? "snap: " + TA06A + ", fmax " + fmax + " eV/Å" : "lj, fmax " + fmax);
        f.put("clusters", Integer.toString(clusters));
        f.put("max_atoms", Long.toString(maxAtoms));
        f.put("wall_inflight_s", String.format(Locale.ROOT, "%.3f", wallInflight));
        f.put("cores", Integer.toString(cores));
        f.put("wall_inflight_" + cores + "t_s", String.format(Locale.ROOT, "%.3f", wallThreads));
        f.put("atom_steps_per_s_inflight", String.format(Locale.ROOT, "%.4g", r.sampleSteps()[Systems.ATOMS] / wallInflight));
        f.put("atom_steps_per_s_inflight_" + cores + "t", String.format(Locale.ROOT, "%.4g", r.sampleSteps()[Systems.ATOMS] / wallThreads));
        f.put("ratio_inflight_" + cores + "t_vs_1t", String.format(Locale.ROOT, "%.3f", wallInflight / wallThreads));
        f.put("ratio_inflight_" + cores + "t_vs_1t_rounds", ratios.toString());
        f.put("wall_static_s", String.format(Locale.ROOT, "%.3f", wallStatic));
        f.put("wall_static_skip_s", String.format(Locale.ROOT, "%.3f", wallSkip));
        f.put("batch_steps_inflight", Long.toString(r.steps()));
        f.put("batch_steps_static", Long.toString(staticCounts[0]));
        f.put("mean_occupancy", String.format(Locale.ROOT, "%.3f", r.meanOccupancy(Systems.ATOMS)));
        f.put("mean_occupancy_static", String.format(Locale.ROOT, "%.3f", occStatic));
        f.put("max_energy_diff", String.format(Locale.ROOT, "%.3g", diff));
        f.put("ratio_static_skip_vs_inflight", String.format(Locale.ROOT, "%.3f", wallSkip / wallInflight));
        f.put("ratio_static_vs_inflight", String.format(Locale.ROOT, "%.3f", wallStatic / wallInflight));
        return f;
    }

    /// The same in-flight relaxation as a Flink job on a local MiniCluster (one stage, parallelism
    /// 1 and 2, no checkpoints), against the local runner, same run. A one-cluster job measures
    /// what a Flink job costs before any work (cluster start, deployment).
    public Map<String, String> runFlink() throws Exception {
        if (snap) {
            throw new IllegalArgumentException("option '--runner': flink runs the LJ workload only (not --potential snap)");
        }
        inflight(systems()); // JIT warm-up
        Map<Long, Double> local = new HashMap<>();
        long t0 = System.nanoTime();
        inflight(systems(), local, 1);
        double wallLocal = (System.nanoTime() - t0) / 1e9;
        double fixed = flink(List.of(systems().getFirst()), 1, new HashMap<>());
        Map<Long, Double> e1 = new HashMap<>();
        double wall1 = flink(systems(), 1, e1);
        Map<Long, Double> e2 = new HashMap<>();
        double wall2 = flink(systems(), 2, e2);
        double diff = 0;
        for (Map.Entry<Long, Double> e : local.entrySet()) {
            diff = Math.max(diff, Math.abs(e.getValue() - e1.get(e.getKey())));
            diff = Math.max(diff, Math.abs(e.getValue() - e2.get(e.getKey())));
        }
        out.printf(Locale.ROOT, "local %.2f s; Flink parallelism 1 %.2f s, 2 %.2f s; a one-cluster Flink job %.2f s%n", wallLocal, wall1,
                wall2, fixed);
        Map<String, String> f = new LinkedHashMap<>();
        f.put("clusters", Integer.toString(clusters));
        f.put("wall_local_s", String.format(Locale.ROOT, "%.3f", wallLocal));
        f.put("wall_flink_s", String.format(Locale.ROOT, "%.3f", wall1));
        f.put("wall_flink_p2_s", String.format(Locale.ROOT, "%.3f", wall2));
        f.put("flink_fixed_cost_s", String.format(Locale.ROOT, "%.3f", fixed));
        f.put("max_energy_diff", String.format(Locale.ROOT, "%.3g", diff));
        f.put("ratio_flink_p2_vs_local", String.format(Locale.ROOT, "%.3f", wall2 / wallLocal));
        f.put("ratio_flink_vs_local", String.format(Locale.ROOT, "%.3f", wall1 / wallLocal));
        f.putAll(checkpointed());
        return f;
    }

    /// Checkpoint interval of the checkpointed run.
    private static final java.time.Duration CHECKPOINT_INTERVAL = java.time.Duration.ofMillis(200);

    /// The relaxation chained with a slower NVE stage (so the FIRE stage is backpressured), with a
    /// checkpoint every 200 ms: how long each stage keeps a checkpoint waiting (trigger to its
    /// snapshot, p50 and p99 over every checkpoint and instance) and how many checkpoints
    /// completed or were aborted. Target (issue "Flink for real"): p99 ≤ 2× the interval, none aborted.
    private Map<String, String> checkpointed() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("penstock-inflight-checkpoints");
        Map<String, String> f = new LinkedHashMap<>();
        try {
            var spec = dev.penstock.flink.AtomsJob.spec("fire(fmax=" + FMAX + ", steps=" + BUDGET + ") | nve(dt=0.002, steps=1500)",
                    "lj(epsilon=1, sigma=1, cutoff=2.5)", 0, new long[] {Long.MAX_VALUE, maxAtoms, Long.MAX_VALUE});
            var options = new dev.penstock.flink.FlinkRunner.Options(1, CHECKPOINT_INTERVAL, 4)
                    .withRestarts(new dev.penstock.flink.FlinkRunner.Restarts(0, java.time.Duration.ZERO));
            var env = dev.penstock.flink.FlinkRunner.localEnvironment(options.slots(2), options);
            var r = dev.penstock.flink.FlinkRunner.run(env, spec, systems(), dir, options, "bench inflight, checkpointed");
            f.put("checkpoint_interval_ms", Long.toString(CHECKPOINT_INTERVAL.toMillis()));
            f.put("wall_flink_checkpointed_s", String.format(Locale.ROOT, "%.3f", r.wall().toNanos() / 1e9));
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < 2; i++) {
                f.put("checkpoint_delay_p50_ms_stage" + i, Long.toString(r.snapshotDelayMs(i, 0.5)));
                f.put("checkpoint_delay_p99_ms_stage" + i, Long.toString(r.snapshotDelayMs(i, 0.99)));
                f.put("checkpoint_delay_max_ms_stage" + i, Long.toString(r.snapshotDelayMs(i, 1.0)));
                f.put("checkpoint_p50_ms_stage" + i, Long.toString(r.checkpointMs(i, 0.5)));
                f.put("checkpoint_p99_ms_stage" + i, Long.toString(r.checkpointMs(i, 0.99)));
                f.put("checkpoint_max_ms_stage" + i, Long.toString(r.checkpointMs(i, 1.0)));
                f.put("checkpoints_completed_stage" + i, Integer.toString(r.checkpoints(i, true)));
                f.put("checkpoints_aborted_stage" + i, Integer.toString(r.checkpoints(i, false)));
                line.append(String.format(Locale.ROOT, "; stage %d: trigger-to-snapshot p50 %d ms, p90 %d, p99 %d; checkpoint p50 %d ms, "
                        + "p90 %d, p99 %d, max %d; %d completed, %d aborted", i, r.snapshotDelayMs(i, 0.5), r.snapshotDelayMs(i, 0.9),
                        r.snapshotDelayMs(i, 0.99), r.checkpointMs(i, 0.5), r.checkpointMs(i, 0.9), r.checkpointMs(i, 0.99),
                        r.checkpointMs(i, 1.0), r.checkpoints(i, true), r.checkpoints(i, false)));
            }
            out.printf(Locale.ROOT, "checkpointed fire | nve (every %d ms), %.2f s%s%n", CHECKPOINT_INTERVAL.toMillis(),
                    r.wall().toNanos() / 1e9, line);
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                for (java.nio.file.Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.delete(p);
                }
            }
        }
        return f;
    }

    /// Wall time of the relaxation as a Flink job at `parallelism`; final energies into `energy`.
    private double flink(List<AtomicSystem> systems, int parallelism, Map<Long, Double> energy) throws Exception {
        java.nio.file.Path out = java.nio.file.Files.createTempDirectory("penstock-inflight-flink");
        try {
            var spec = dev.penstock.flink.AtomsJob.spec("fire(fmax=" + FMAX + ", steps=" + BUDGET + ")", "lj(epsilon=1, sigma=1, cutoff=2.5)",
                    0, new long[] {Long.MAX_VALUE, maxAtoms, Long.MAX_VALUE});
            var options = new dev.penstock.flink.FlinkRunner.Options(parallelism, java.time.Duration.ZERO, 4)
                    .withRestarts(new dev.penstock.flink.FlinkRunner.Restarts(0, java.time.Duration.ZERO));
            long t0 = System.nanoTime();
            var env = dev.penstock.flink.FlinkRunner.localEnvironment(parallelism, options);
            var r = dev.penstock.flink.FlinkRunner.run(env, spec, systems, out, options, "bench inflight");
            double wall = (System.nanoTime() - t0) / 1e9;
            for (java.nio.file.Path p : r.parts()) {
                try (var in = java.nio.file.Files.newBufferedReader(p)) {
                    for (AtomicSystem s : dev.penstock.atoms.io.ExtXyz.read(in, p)) {
                        energy.put(s.id(), s.energy());
                    }
                }
            }
            return wall;
        } finally {
            try (var files = java.nio.file.Files.walk(out)) {
                for (java.nio.file.Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.delete(p);
                }
            }
        }
    }

    private Summary<AtomicSystem> inflight(List<AtomicSystem> systems) {
        return inflight(systems, new HashMap<>(), 1);
    }

    private Summary<AtomicSystem> inflight(List<AtomicSystem> systems, Map<Long, Double> energy, int refill) {
        return inflight(systems, energy, refill, 1);
    }

    /// FIRE through one device stage on `CpuDevice`, refilled every `refill` steps (MAX_VALUE: only
    /// when empty), its kernels split over `threads` threads.
    private Summary<AtomicSystem> inflight(List<AtomicSystem> systems, Map<Long, Double> energy, int refill, int threads) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("relaxed");
        Summary<AtomicSystem> s;
        Model m = model.get();
        try (CpuDevice cpu = new CpuDevice();
             Pipeline<AtomicSystem> p = Pipeline.of(DeviceStages.fire(Convergence.of(fmax, BUDGET), m, cpu, d -> new CpuRelaxKernels(threads)))
                .sizer(Systems.withListRadius(m.cutoff())).batchCapacity(Capacity.of(Long.MAX_VALUE, maxAtoms, Long.MAX_VALUE))
                .refillEvery(refill).samples(systems).results(sink)) {
            s = p.run();
        }
        for (AtomicSystem a : sink.samples()) {
            energy.put(a.id(), a.energy());
        }
        return s;
    }

    private long[] staticFixed(List<AtomicSystem> systems) {
        return staticFixed(systems, new HashMap<>());
    }

    /// Static batches with fixed shapes: fill to the budget in order, step until every system of
    /// the batch has converged; converged systems are frozen but still evaluated. Returns
    /// {batch-steps, atom-steps}.
    private long[] staticFixed(List<AtomicSystem> systems, Map<Long, Double> energy) {
        Model lj = model.get();
        Convergence rule = Convergence.of(fmax, BUDGET);
        long batchSteps = 0;
        long atomSteps = 0;
        int next = 0;
        while (next < systems.size()) {
            List<AtomicSystem> batch = new ArrayList<>();
            long atoms = 0;
            while (next < systems.size() && atoms + systems.get(next).atoms() <= maxAtoms) {
                atoms += systems.get(next).atoms();
                batch.add(systems.get(next++));
            }
            int b = batch.size();
            Fire[] fire = new Fire[b];
            boolean[] done = new boolean[b];
            int[] taken = new int[b];
            double[] previous = new double[b];
            int live = 0;
            for (int i = 0; i < b; i++) {
                fire[i] = new Fire();
                lj.compute(batch.get(i));
                previous[i] = Double.NaN;
                done[i] = rule.converged(batch.get(i).maxForce(), batch.get(i).energy(), previous[i]);
                live += done[i] ? 0 : 1;
            }
            while (live > 0) {
                for (int i = 0; i < b; i++) {
                    if (!done[i]) {
                        previous[i] = batch.get(i).energy();
                        AtomicSystem x = batch.get(i);
                        fire[i].step(x.forces(), x.velocities(), x.positions(), x.masses(), 3 * x.atoms());
                        taken[i]++;
                    }
                }
                for (int i = 0; i < b; i++) {
                    lj.compute(batch.get(i)); // the whole batch, as a fixed-shape evaluation does
                }
                for (int i = 0; i < b; i++) {
                    AtomicSystem s = batch.get(i);
                    if (!done[i] && (rule.converged(s.maxForce(), s.energy(), previous[i]) || taken[i] >= rule.maxSteps())) {
                        done[i] = true;
                        live--;
                    }
                }
                batchSteps++;
                atomSteps += atoms;
            }
            for (AtomicSystem s : batch) {
                energy.put(s.id(), s.energy());
                lj.forget(s.id());
            }
        }
        return new long[] {batchSteps, atomSteps};
    }
}
