package dev.penstock.benchmarks;

import dev.penstock.data.Dataset;
import dev.penstock.data.PrepContext;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.random.RandomGenerator;

/// The `loader` workload of docs/workloads.md: `loadHost(i)` sleeps 2 ms (simulated storage
/// latency), then fills 65,536 float32 `x_j = sin(j · 1e-3 · (i mod 997 + 1) + 2)` and
/// normalises them to `(x − mean) / std`.
///
/// Host samples come from a recycling pool of off-heap blocks (allocated on first use, given
/// back by `releaseHost`), so steady state allocates no sample memory.
public final class LoaderWorkload implements Dataset<Block, Block>, AutoCloseable {
    /// Features per sample (float32).
    public static final int FEATURES = 65_536;
    /// Simulated storage latency per sample.
    public static final long LATENCY_NS = 2_000_000;
    /// Exact `sin`/`cos` re-seed interval of the rotation recurrence (bounds rounding drift).
    private static final int RESEED = 4096;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final int L = D.length();
    private static final VectorSpecies<Float> F = VectorSpecies.of(float.class, VectorShape.forBitSize(32 * L));

    private final long samples;
    private final HostArena arena = Memory.newSharedArena("loader-workload");
    private final ArrayBlockingQueue<Block> free = new ArrayBlockingQueue<>(8192);

    /// A dataset of `samples` samples.
    public LoaderWorkload(long samples) {
        this.samples = samples;
    }

    @Override
    public long size() {
        return samples;
    }

    @Override
    public Block loadHost(long index, RandomGenerator rng) throws InterruptedException {
        Thread.sleep(LATENCY_NS / 1_000_000, (int) (LATENCY_NS % 1_000_000));
        Block b = free.poll();
        if (b == null) {
            synchronized (arena) {
                b = arena.allocate(DType.F32, FEATURES);
            }
        }
        fill(index, b);
        return b;
    }

    /// Fills `b` with sample `index`'s normalised features.
    ///
    /// `sin(j·a + 2)` is advanced L lanes at a time (L = the preferred vector length) by the
    /// angle-addition rotation `(s, c) ← (s·cos La + c·sin La, c·cos La − s·sin La)` in double
    /// precision, re-seeded exactly every 4,096 elements: |error| < 1e-12, far below float32
    /// resolution. Mean and variance accumulate in the same pass; a second pass normalises.
    public static void fill(long index, Block b) {
        double a = 1e-3 * (index % 997 + 1);
        double cL = Math.cos(L * a);
        double sL = Math.sin(L * a);
        MemorySegment seg = b.segment();
        double[] s0 = new double[L];
        double[] c0 = new double[L];
        DoubleVector sum = DoubleVector.zero(D);
        DoubleVector sumSq = DoubleVector.zero(D);
        for (int base = 0; base < FEATURES; base += RESEED) {
            for (int k = 0; k < L; k++) {
                s0[k] = Math.sin((base + k) * a + 2);
                c0[k] = Math.cos((base + k) * a + 2);
            }
            DoubleVector s = DoubleVector.fromArray(D, s0, 0);
            DoubleVector c = DoubleVector.fromArray(D, c0, 0);
            for (int j = base; j < base + RESEED; j += L) {
                FloatVector x = (FloatVector) s.convertShape(VectorOperators.D2F, F, 0);
                x.intoMemorySegment(seg, 4L * j, ByteOrder.nativeOrder());
                DoubleVector xd = (DoubleVector) x.convertShape(VectorOperators.F2D, D, 0);
                sum = sum.add(xd);
                sumSq = xd.fma(xd, sumSq);
                DoubleVector next = s.mul(cL).add(c.mul(sL));
                c = c.mul(cL).sub(s.mul(sL));
                s = next;
            }
        }
        double mean = sum.reduceLanes(VectorOperators.ADD) / FEATURES;
        double var = sumSq.reduceLanes(VectorOperators.ADD) / FEATURES - mean * mean;
        float m = (float) mean;
        float inv = (float) (1.0 / Math.sqrt(Math.max(var, 0)));
        for (int j = 0; j < FEATURES; j += L) {
            FloatVector x = FloatVector.fromMemorySegment(F, seg, 4L * j, ByteOrder.nativeOrder());
            x.sub(m).mul(inv).intoMemorySegment(seg, 4L * j, ByteOrder.nativeOrder());
        }
    }

    @Override
    public Block consume(Block host, PrepContext ctx) {
        // On a CPU device the host block is already device-visible; collate copies it into the
        // batch (the "transfer"), on the prep stream.
        return host;
    }

    @Override
    public long hostBytes(Block host) {
        return host.byteSize();
    }

    @Override
    public long expectedHostBytes(long index) {
        return 4L * FEATURES; // every sample is one float32 feature row
    }

    @Override
    public void releaseHost(Block host) {
        free.offer(host);
    }

    @Override
    public void close() {
        arena.close();
    }
}
