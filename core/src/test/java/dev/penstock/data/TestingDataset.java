package dev.penstock.data;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;

/// A map dataset whose samples record their index and their first random draws, with knobs
/// for delays, failures, nulls and hangs. Host and device samples are the same record.
class TestingDataset implements Dataset<TestingDataset.Sample, TestingDataset.Sample> {

    record Sample(long index, long draw, double gaussian) {
    }

    final long size;
    long delaySeed = -1;          // >= 0: each load sleeps 0-2 ms, keyed by index
    long failAt = -1;
    long nullAt = -1;
    long hangAt = -1;
    final List<Long> consumed = new CopyOnWriteArrayList<>();
    final Set<Long> released = ConcurrentHashMap.newKeySet();

    TestingDataset(long size) {
        this.size = size;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public Sample loadHost(long index, RandomGenerator rng) throws Exception {
        if (delaySeed >= 0) {
            Thread.sleep(Math.floorMod(dev.penstock.random.Seeds.derive(delaySeed, "delay", index), 3));
        }
        if (index == failAt) {
            throw new java.io.IOException("corrupt record at sample " + index);
        }
        if (index == nullAt) {
            return null;
        }
        if (index == hangAt) {
            Thread.sleep(Long.MAX_VALUE);
        }
        return new Sample(index, rng.nextLong(), rng.nextGaussian());
    }

    @Override
    public Sample consume(Sample host, PrepContext ctx) {
        consumed.add(host.index());
        return host;
    }

    @Override
    public void releaseHost(Sample host) {
        released.add(host.index());
    }
}
