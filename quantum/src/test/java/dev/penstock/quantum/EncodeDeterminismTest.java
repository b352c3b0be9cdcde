package dev.penstock.quantum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/// The same row always gives the same state, bit for bit, however warm the JIT is: rows encoded
/// first (the vector kernels interpreted, then compiled by C1: the Vector API's Java fallback)
/// and the same rows encoded again after a few hundred thousand others (compiled by C2:
/// intrinsics) are byte-identical. It failed while the kernels summed a row's squares with
/// `reduceLanes(ADD)`, whose order the Vector API leaves open (C2 adds the lanes as a tree, the
/// fallback in lane order): two runs of one `encode` differed in an ulp in 32–270 rows of 100,000.
class EncodeDeterminismTest {
    @Test
    void aRowEncodedColdAndAgainWarmGivesTheSameBytes() {
        int qubits = 8;
        int len = 1 << qubits;
        int probes = 3000;
        SplittableRandom rnd = new SplittableRandom(11);
        try (HostArena arena = Memory.newSharedArena("determinism")) {
            Block rows = arena.allocate(DType.F64, probes, len);
            for (long i = 0; i < (long) probes * len; i++) {
                rows.setDouble(i, rnd.nextGaussian());
            }
            Encoder enc = Encoder.of(Encoding.AMPLITUDE, qubits);
            Block cold = arena.allocate(DType.C128, probes, len);
            enc.encodeBatch(rows, cold, 0, BadRowPolicy.FAIL);
            Block other = arena.allocate(DType.F64, 1000, len);
            for (long i = 0; i < 1000L * len; i++) {
                other.setDouble(i, rnd.nextGaussian());
            }
            Block sink = arena.allocate(DType.C128, 1000, len);
            for (int k = 0; k < 300; k++) { // 300,000 rows: the kernels reach C2
                enc.encodeBatch(other, sink, 0, BadRowPolicy.FAIL);
            }
            Block warm = arena.allocate(DType.C128, probes, len);
            enc.encodeBatch(rows, warm, 0, BadRowPolicy.FAIL);
            byte[] a = cold.segment().toArray(ValueLayout.JAVA_BYTE);
            byte[] b = warm.segment().toArray(ValueLayout.JAVA_BYTE);
            int differing = 0;
            for (int r = 0; r < probes; r++) {
                if (!java.util.Arrays.equals(a, r * len * 16, (r + 1) * len * 16, b, r * len * 16, (r + 1) * len * 16)) {
                    differing++;
                }
            }
            assertThat(differing).as("rows whose state changed once the JIT had compiled the kernels").isZero();
        }
    }
}
