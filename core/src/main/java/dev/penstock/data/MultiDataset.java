package dev.penstock.data;

import java.util.Arrays;
import java.util.List;
import java.util.random.RandomGenerator;

/// Several datasets concatenated into one index space: indices `0 … size(0)-1` are dataset 0's,
/// the next `size(1)` dataset 1's, and so on. Every sample is tagged with its dataset.
public final class MultiDataset<H, D> implements Dataset<Tagged<H>, Tagged<D>> {
    private final List<Dataset<H, D>> parts;
    private final long[] starts; // starts[k] = first global index of dataset k; starts[n] = size

    private MultiDataset(List<Dataset<H, D>> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a MultiDataset needs at least one dataset");
        }
        this.parts = List.copyOf(parts);
        this.starts = new long[parts.size() + 1];
        for (int k = 0; k < parts.size(); k++) {
            starts[k + 1] = Math.addExact(starts[k], parts.get(k).size());
        }
    }

    /// Concatenates `parts` in order.
    @SafeVarargs
    public static <H, D> MultiDataset<H, D> of(Dataset<H, D>... parts) {
        return new MultiDataset<>(Arrays.stream(parts).toList());
    }

    /// Concatenates `parts` in order.
    public static <H, D> MultiDataset<H, D> of(List<Dataset<H, D>> parts) {
        return new MultiDataset<>(parts);
    }

    @Override
    public long size() {
        return starts[parts.size()];
    }

    /// Which dataset global index `index` belongs to.
    public int datasetOf(long index) {
        if (index < 0 || index >= size()) {
            throw new IndexOutOfBoundsException("index " + index + " outside a MultiDataset of " + size() + " samples");
        }
        int k = Arrays.binarySearch(starts, index);
        if (k >= 0) {
            while (k + 1 < starts.length && starts[k + 1] == index) {
                k++; // skip empty datasets
            }
            return k;
        }
        return -k - 2;
    }

    @Override
    public Tagged<H> loadHost(long index, RandomGenerator rng) throws Exception {
        int k = datasetOf(index);
        long local = index - starts[k];
        H host = parts.get(k).loadHost(local, rng);
        return host == null ? null : new Tagged<>(k, local, host);
    }

    @Override
    public Tagged<D> consume(Tagged<H> host, PrepContext ctx) {
        return new Tagged<>(host.dataset(), host.localIndex(), parts.get(host.dataset()).consume(host.value(), ctx));
    }

    @Override
    public long hostBytes(Tagged<H> host) {
        return parts.get(host.dataset()).hostBytes(host.value());
    }

    @Override
    public long expectedHostBytes(long index) {
        int k = datasetOf(index);
        return parts.get(k).expectedHostBytes(index - starts[k]);
    }

    @Override
    public void releaseHost(Tagged<H> host) {
        parts.get(host.dataset()).releaseHost(host.value());
    }
}
