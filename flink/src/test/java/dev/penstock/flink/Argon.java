package dev.penstock.flink;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.stage.PerSystemStages;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/// Small argon clusters and the reference results of the local runner, for the Flink tests.
final class Argon {
    static final String PIPELINE = "fire(fmax=0.01) + langevin(T=30, dt=4, steps=60) | nve(dt=4, steps=40) | fire2(fmax=0.02, steps=300)";
    static final String LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";
    static final long[] ROOM = {4, 120, 100_000};

    private Argon() {
    }

    /// `count` clusters of 13–40 argon atoms: the fcc sites nearest the origin (3.8 Å apart) with
    /// ±0.1 Å noise.
    static List<AtomicSystem> clusters(int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<AtomicSystem> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            out.add(cluster(k, 13 + rnd.nextInt(28), rnd));
        }
        return out;
    }

    /// An argon cluster of `n` atoms with id `id`: fcc sites 3.8 Å apart, ±0.1 Å noise from `rnd`.
    private static AtomicSystem cluster(long id, int n, SplittableRandom rnd) {
        double[] r = Clusters.fccSites(n, 3.8);
        for (int i = 0; i < r.length; i++) {
            r[i] += rnd.nextDouble(-0.1, 0.1);
        }
        double[] m = new double[n];
        Arrays.fill(m, 39.948);
        int[] z = new int[n];
        Arrays.fill(z, 18);
        return new AtomicSystem(id, r, m, z, Cell.free());
    }

    /// `count` periodic argon crystals of 32 atoms (2 × 2 × 2 fcc cells of 5.3 Å, each cell sheared
    /// its own way, ±0.1 Å noise): what the cell-changing stages take.
    static List<AtomicSystem> crystals(int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        List<AtomicSystem> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            double[] h = {10.6, 0, 0, rnd.nextDouble(-1, 1), 10.6, 0, rnd.nextDouble(-1, 1), rnd.nextDouble(-1, 1), 10.6};
            double[] r = new double[3 * 32];
            int p = 0;
            for (int x = 0; x < 2; x++) {
                for (int y = 0; y < 2; y++) {
                    for (int z = 0; z < 2; z++) {
                        for (double[] b : basis) {
                            for (int e = 0; e < 3; e++) {
                                r[3 * p + e] = (x + b[0]) / 2 * h[e] + (y + b[1]) / 2 * h[3 + e] + (z + b[2]) / 2 * h[6 + e] + rnd.nextDouble(-0.1, 0.1);
                            }
                            p++;
                        }
                    }
                }
            }
            double[] m = new double[32];
            Arrays.fill(m, 39.948);
            int[] z = new int[32];
            Arrays.fill(z, 18);
            out.add(new AtomicSystem(k, r, m, z, Cell.of(h, new boolean[] {true, true, true})));
        }
        return out;
    }

    /// Argon clusters of the given sizes (fcc sites, ±0.1 Å noise), ids from `firstId` on: above
    /// 64 atoms their neighbour lists are cell lists.
    static List<AtomicSystem> largeClusters(List<Integer> sizes, long firstId) {
        SplittableRandom rnd = new SplittableRandom(firstId);
        List<AtomicSystem> out = new ArrayList<>();
        long id = firstId;
        for (int n : sizes) {
            out.add(cluster(id++, n, rnd));
        }
        return out;
    }

    /// id → "positions | energy" of finished systems.
    static Map<Long, String> outcomes(List<AtomicSystem> systems) {
        Map<Long, String> out = new TreeMap<>();
        for (AtomicSystem s : systems) {
            if (out.put(s.id(), Arrays.toString(s.positions()) + " | " + s.energy()) != null) {
                throw new AssertionError("system " + s.id() + " delivered twice");
            }
        }
        return out;
    }

    /// The local runner's results for `systems`.
    static Map<Long, String> local(List<AtomicSystem> systems, long seed) {
        return local(systems, seed, PIPELINE, ROOM);
    }

    /// The local runner's results of `pipeline` for `systems`, with batches of `room`.
    static Map<Long, String> local(List<AtomicSystem> systems, long seed, String pipeline, long[] room) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("local");
        try (Pipeline<AtomicSystem> p = PerSystemStages.build(PipelineSpec.parse(pipeline), PipelineSpec.potential(LJ), seed)
                .sizer(Systems.withListRadius(8.5)).batchCapacity(Capacity.of(room)).samples(systems).results(sink)) {
            p.run();
        }
        return outcomes(sink.samples());
    }

    /// Every system in the committed result files under `dir`.
    static List<AtomicSystem> read(Path dir) throws Exception {
        List<AtomicSystem> out = new ArrayList<>();
        for (Path part : FlinkRunner.parts(dir)) {
            try (BufferedReader in = Files.newBufferedReader(part)) {
                out.addAll(ExtXyz.read(in, part));
            }
        }
        return out;
    }
}
