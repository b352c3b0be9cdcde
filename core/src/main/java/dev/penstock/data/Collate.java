package dev.penstock.data;

import dev.penstock.memory.Block;
import java.util.Arrays;
import java.util.List;

/// Combines a batch's samples into one batch value, enqueueing the work on `ctx.stream()`.
@FunctionalInterface
public interface Collate<D, B> {

    B collate(List<D> samples, PrepContext ctx);

    /// The batch as the list of its samples (no copy).
    static <D> Collate<D, List<D>> asList() {
        return (samples, ctx) -> List.copyOf(samples);
    }

    /// Stacks same-dtype, same-shape blocks into one `[n, …shape]` block in the batch arena;
    /// the copies are the device's own (`Stream.copy`: device to device on a GPU), enqueued on
    /// the preprocessing stream, so the host never touches batch memory.
    static Collate<Block, Block> stack() {
        return (samples, ctx) -> {
            Block first = samples.getFirst();
            long[] shape = first.shape();
            long[] batchShape = new long[shape.length + 1];
            batchShape[0] = samples.size();
            System.arraycopy(shape, 0, batchShape, 1, shape.length);
            Block out = ctx.arena().allocate(first.dtype(), batchShape);
            for (int i = 0; i < samples.size(); i++) {
                Block s = samples.get(i);
                if (s.dtype() != first.dtype() || !Arrays.equals(s.shape(), shape)) {
                    throw new IllegalArgumentException("cannot stack sample " + i + " of batch " + ctx.batch() + ": "
                            + s + " differs from sample 0's " + first);
                }
            }
            for (int i = 0; i < samples.size(); i++) { // device copies: the host never touches batch memory
                ctx.stream().copy(samples.get(i), out.slice(i, i + 1).reshape(shape));
            }
            return out;
        };
    }
}
