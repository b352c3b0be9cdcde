package dev.penstock.quantum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class EncoderTest {
    private HostArena arena;

    @BeforeEach
    void open() {
        arena = Memory.newConfinedArena("encoder-test");
    }

    @AfterEach
    void close() {
        arena.close();
    }

    /// Encodes one row with the chosen path and returns interleaved (re, im) as doubles.
    private double[] encode(Encoding e, int n, boolean simd, DType out, double... row) {
        Encoder enc = Encoder.of(e, n, simd);
        Block b = arena.allocate(out, 1, 1L << n);
        enc.encode(row, row.length, b, 0, 0);
        double[] z = new double[2 << n];
        for (int i = 0; i < 1 << n; i++) {
            z[2 * i] = b.getReal(i);
            z[2 * i + 1] = b.getImag(i);
        }
        return z;
    }

    private void expectBothPaths(Encoding e, int n, double[] row, double[] expected) {
        for (boolean simd : new boolean[] {false, true}) {
            assertThat(encode(e, n, simd, DType.C128, row)).as("%s simd=%s", e, simd).containsExactly(expected, within(1e-15));
            double[] single = encode(e, n, simd, DType.C64, row);
            assertThat(single).as("%s c64 simd=%s", e, simd).containsExactly(expected, within(1e-7));
        }
    }

    @Test
    void referenceExamplesOfEveryEncoding() {
        double h = Math.PI / 2;
        expectBothPaths(Encoding.AMPLITUDE, 2, new double[] {3, 4}, new double[] {0.6, 0, 0.8, 0, 0, 0, 0, 0});
        expectBothPaths(Encoding.AMPLITUDE, 2, new double[] {1, 2, 2}, new double[] {1 / 3.0, 0, 2 / 3.0, 0, 2 / 3.0, 0, 0, 0});
        expectBothPaths(Encoding.ANGLE, 2, new double[] {h, 0}, new double[] {0, 0, 1, 0, 0, 0, 0, 0});
        expectBothPaths(Encoding.PHASE, 2, new double[] {h, Math.PI}, new double[] {0.5, 0, 0, 0.5, -0.5, 0, 0, -0.5});
        expectBothPaths(Encoding.IQP_Z, 1, new double[] {h}, new double[] {0.5, 0.5, 0.5, -0.5});
        expectBothPaths(Encoding.IQP, 3, new double[6], new double[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        expectBothPaths(Encoding.BASIS, 2, new double[] {2}, new double[] {0, 0, 0, 0, 1, 0, 0, 0});
    }

    @Test
    void amplitudeNormalisesRowsNearTheEndsOfTheDoubleRange() {
        double r = Math.sqrt(0.5);
        expectBothPaths(Encoding.AMPLITUDE, 1, new double[] {1e200, 1e200}, new double[] {r, 0, r, 0});
        expectBothPaths(Encoding.AMPLITUDE, 1, new double[] {3e-200, 4e-200}, new double[] {0.6, 0, 0.8, 0});
        expectBothPaths(Encoding.AMPLITUDE, 2, new double[] {-1e300, 0, 1e300}, new double[] {-r, 0, 0, 0, r, 0, 0, 0});
    }

    /// Independent formulas, evaluated index by index.
    private static double[] direct(Encoding e, int n, double[] x) {
        int size = 1 << n;
        double[] z = new double[2 * size];
        switch (e) {
            case AMPLITUDE -> {
                double norm = 0;
                for (double v : x) {
                    norm += v * v;
                }
                norm = Math.sqrt(norm);
                for (int i = 0; i < x.length; i++) {
                    z[2 * i] = x[i] / norm;
                }
            }
            case ANGLE -> {
                for (int i = 0; i < size; i++) {
                    double p = 1;
                    for (int k = 0; k < n; k++) {
                        p *= ((i >> k) & 1) == 1 ? Math.sin(x[k]) : Math.cos(x[k]);
                    }
                    z[2 * i] = p;
                }
            }
            case PHASE -> {
                for (int b = 0; b < size; b++) {
                    double t = 0;
                    for (int k = 0; k < n; k++) {
                        t += ((b >> k) & 1) * x[k];
                    }
                    z[2 * b] = Math.cos(t) / Math.sqrt(size);
                    z[2 * b + 1] = Math.sin(t) / Math.sqrt(size);
                }
            }
            case IQP, IQP_Z -> {
                for (int zi = 0; zi < size; zi++) {
                    double sr = 0;
                    double si = 0;
                    for (int xi = 0; xi < size; xi++) {
                        double t = 0;
                        int p = n;
                        for (int i = 0; i < n; i++) {
                            t += ((xi >> i) & 1) * x[i];
                        }
                        if (e == Encoding.IQP) {
                            for (int i = 0; i < n; i++) {
                                for (int j = i + 1; j < n; j++) {
                                    t += ((xi >> i) & 1) * ((xi >> j) & 1) * x[p++];
                                }
                            }
                        }
                        double sign = (Integer.bitCount(xi & zi) & 1) == 0 ? 1 : -1;
                        sr += sign * Math.cos(t);
                        si += sign * Math.sin(t);
                    }
                    z[2 * zi] = sr / size;
                    z[2 * zi + 1] = si / size;
                }
            }
            case BASIS -> z[2 * (int) x[0]] = 1;
        }
        return z;
    }

    @ParameterizedTest
    @ValueSource(strings = {"amplitude", "angle", "phase", "iqp", "iqp-z", "basis"})
    void bothPathsMatchTheDirectFormulasOnRandomRows(String name) {
        Encoding e = Encoding.parse(name);
        long seed = 20261130L + name.hashCode();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int n = 1; n <= 7; n++) {
            for (int trial = 0; trial < 5; trial++) {
                int len = e == Encoding.AMPLITUDE ? 1 + rnd.nextInt(1 << n) : (int) e.inputLength(n);
                double[] x = new double[len];
                for (int i = 0; i < len; i++) {
                    x[i] = e == Encoding.BASIS ? rnd.nextInt(1 << n) : rnd.nextDouble(-4, 4);
                }
                double[] want = direct(e, n, x);
                double[] scalar = encode(e, n, false, DType.C128, x);
                double[] simd = encode(e, n, true, DType.C128, x);
                assertThat(scalar).as("%s n=%d scalar vs direct (seed %d)", e, n, seed).containsExactly(want, within(1e-12));
                assertThat(simd).as("%s n=%d simd vs scalar (seed %d)", e, n, seed).containsExactly(scalar, within(1e-13));
                double norm = 0;
                for (double v : simd) {
                    norm += v * v;
                }
                assertThat(norm).as("a state has norm 1").isCloseTo(1, within(1e-12));
            }
        }
    }

    @Test
    void largerStatesAgreeBetweenPathsInSinglePrecision() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (Encoding e : new Encoding[] {Encoding.AMPLITUDE, Encoding.ANGLE, Encoding.PHASE, Encoding.IQP_Z, Encoding.IQP}) {
            int n = 12;
            int len = (int) e.inputLength(n);
            double[] x = new double[len];
            for (int i = 0; i < len; i++) {
                x[i] = rnd.nextDouble(-2, 2);
            }
            assertThat(encode(e, n, true, DType.C64, x)).as("%s", e).containsExactly(encode(e, n, false, DType.C64, x), within(1e-6));
        }
    }

    @Test
    void badRowsNameTheRowAndTheRule() {
        Encoder amp = Encoder.of(Encoding.AMPLITUDE, 2);
        Block out = arena.allocate(DType.C128, 1, 4);
        assertThatThrownBy(() -> amp.encode(new double[0], 0, out, 0, 41)).hasMessageContaining("row 41").hasMessageContaining("empty");
        assertThatThrownBy(() -> amp.encode(new double[5], 5, out, 0, 3)).hasMessageContaining("at most 4 values, got 5");
        assertThatThrownBy(() -> amp.encode(new double[3], 3, out, 0, 3)).hasMessageContaining("non-zero norm");
        assertThatThrownBy(() -> amp.encode(new double[] {1, Double.NaN}, 2, out, 0, 9)).hasMessageContaining("row 9")
                .hasMessageContaining("value 1 is NaN");
        assertThatThrownBy(() -> amp.encode(new double[] {Double.POSITIVE_INFINITY}, 1, out, 0, 9)).hasMessageContaining("Infinity");
        Encoder angle = Encoder.of(Encoding.ANGLE, 2);
        assertThatThrownBy(() -> angle.encode(new double[3], 3, out, 0, 0)).hasMessageContaining("exactly 2 values, got 3");
        Encoder iqp = Encoder.of(Encoding.IQP, 2);
        assertThatThrownBy(() -> iqp.encode(new double[2], 2, out, 0, 0)).hasMessageContaining("exactly 3 values");
        Encoder basis = Encoder.of(Encoding.BASIS, 2);
        assertThatThrownBy(() -> basis.encode(new double[] {1.5}, 1, out, 0, 0)).hasMessageContaining("whole index in [0, 4)");
        assertThatThrownBy(() -> basis.encode(new double[] {4}, 1, out, 0, 0)).hasMessageContaining("got 4.0");
        assertThatThrownBy(() -> basis.encode(new double[] {-1}, 1, out, 0, 0)).hasMessageContaining("got -1.0");
        assertThatThrownBy(() -> Encoder.of(Encoding.AMPLITUDE, 0)).hasMessageContaining("qubits must be in [1, 30]").hasMessageContaining("0");
        assertThatThrownBy(() -> Encoder.of(Encoding.AMPLITUDE, 31)).hasMessageContaining("31");
        assertThatThrownBy(() -> Encoding.parse("dense")).hasMessageContaining("'dense'").hasMessageContaining("iqp-z");
    }

    @Test
    void skipWritesEveryGoodRowInOrderAndListsTheBadOnes() {
        Block in = arena.allocate(DType.F32, 5, 2);
        float[][] rows = {{3, 4}, {0, 0}, {1, 0}, {Float.NaN, 1}, {0, 2}};
        for (int r = 0; r < 5; r++) {
            in.setFloat(2L * r, rows[r][0]);
            in.setFloat(2L * r + 1, rows[r][1]);
        }
        Block out = arena.allocate(DType.C64, 5, 2);
        EncodeResult res = Encoder.of(Encoding.AMPLITUDE, 1).encodeBatch(in, out, 100, BadRowPolicy.SKIP);
        assertThat(res.rowsRead()).isEqualTo(5);
        assertThat(res.rowsWritten()).isEqualTo(3);
        assertThat(res.skipped()).extracting(EncodingException::row).containsExactly(101L, 103L);
        assertThat(out.getReal(0)).isCloseTo(0.6, within(1e-7));
        assertThat(out.getReal(2)).isCloseTo(1, within(1e-7)); // row 102 -> output row 1
        assertThat(out.getReal(5)).isCloseTo(1, within(1e-7)); // row 104 -> output row 2
        assertThatThrownBy(() -> Encoder.of(Encoding.AMPLITUDE, 1).encodeBatch(in, out, 100, BadRowPolicy.FAIL))
                .isInstanceOf(EncodingException.class).hasMessageContaining("row 101");
        assertThat(BadRowPolicy.parse("skip")).isEqualTo(BadRowPolicy.SKIP);
        assertThatThrownBy(() -> BadRowPolicy.parse("ignore")).hasMessageContaining("unknown bad-row policy 'ignore'");
    }

    @Test
    void theSimdBatchPathMatchesTheScalarPathOnMixedRows() {
        long seed = 99;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (DType inType : new DType[] {DType.F32, DType.F64}) {
            for (DType outType : new DType[] {DType.C64, DType.C128}) {
                int n = 5;
                int rows = 40;
                for (int len : new int[] {1, 7, 16, 32}) {
                    Block in = arena.allocate(inType, rows, len);
                    for (int r = 0; r < rows; r++) {
                        boolean f32 = inType == DType.F32;
                        double scale = switch (r % 5) {
                            case 0 -> f32 ? 1e35 : 1e200;   // squares overflow (in float / in double)
                            case 1 -> f32 ? 1e-35 : 1e-200; // squares underflow
                            case 2 -> f32 ? 1e20 : 1e160;
                            default -> 1;
                        };
                        for (int i = 0; i < len; i++) {
                            double v = (0.1 + rnd.nextDouble(0.9)) * (rnd.nextBoolean() ? 1 : -1) * scale;
                            if (r == 13 && i == 0) {
                                v = Double.NaN; // a bad row in the middle
                            }
                            if (r == 17) {
                                v = 0; // a zero row
                            }
                            if (inType == DType.F32) {
                                in.setFloat((long) r * len + i, (float) v);
                            } else {
                                in.setDouble((long) r * len + i, v);
                            }
                        }
                    }
                    Block a = arena.allocate(outType, rows, 1L << n);
                    Block b = arena.allocate(outType, rows, 1L << n);
                    EncodeResult ra = Encoder.of(Encoding.AMPLITUDE, n, true).encodeBatch(in, a, 0, BadRowPolicy.SKIP);
                    EncodeResult rb = Encoder.of(Encoding.AMPLITUDE, n, false).encodeBatch(in, b, 0, BadRowPolicy.SKIP);
                    assertThat(ra.skipped()).extracting(EncodingException::rule).isEqualTo(rb.skipped().stream().map(EncodingException::rule).toList());
                    assertThat(ra.skipped()).extracting(EncodingException::row).containsExactly(13L, 17L);
                    double tol = outType == DType.C64 ? 1e-7 : 1e-14;
                    for (long i = 0; i < ra.rowsWritten() << n; i++) {
                        assertThat(a.getReal(i)).as("%s->%s len %d element %d (seed %d)", inType, outType, len, i, seed)
                                .isCloseTo(b.getReal(i), within(tol));
                        assertThat(a.getImag(i)).isZero();
                    }
                }
            }
        }
    }

    @Test
    void libraryErrorsNameTheParameterNotACommandLineOption() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Encoder.of(Encoding.AMPLITUDE, 31)).hasMessage("qubits must be in [1, 30], got 31");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Encoding.parse("ampl")).hasMessageStartingWith("unknown encoding 'ampl'")
                .hasMessageNotContaining("--");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new EncodePipeline.Config(Encoding.AMPLITUDE, 3, DType.C128, 0, 3, 2,
                BadRowPolicy.FAIL)).hasMessage("rowsPerChunk must be at least 1, got 0");
    }

    @Test
    void subnormalRowsEncodeExactlyOnEveryPathAndEveryPolicy() {
        double[][] rows = {{5e-324, 0, 5e-324, 0}, {1e-310, 2e-310, 0, 0}, {Double.MIN_NORMAL, 0, 0, 0}, {3, 4, 0, 0}};
        double[][] want = {{Math.sqrt(0.5), 0, Math.sqrt(0.5), 0}, {1e-310 / 2e-310 / Math.hypot(1e-310 / 2e-310, 1), 1 / Math.hypot(1e-310 / 2e-310, 1), 0, 0},
                {1, 0, 0, 0}, {0.6, 0.8, 0, 0}};
        Block in = arena.allocate(DType.F64, rows.length, 4);
        for (int r = 0; r < rows.length; r++) {
            for (int i = 0; i < 4; i++) {
                in.setDouble(r * 4L + i, rows[r][i]);
            }
        }
        for (boolean simd : new boolean[] {true, false}) {
            for (BadRowPolicy policy : new BadRowPolicy[] {BadRowPolicy.FAIL, BadRowPolicy.SKIP}) {
                Block out = arena.allocate(DType.C128, rows.length, 4);
                EncodeResult res = Encoder.of(Encoding.AMPLITUDE, 2, simd).encodeBatch(in, out, 0, policy);
                assertThat(res.skipped()).as("no subnormal row is bad").isEmpty();
                assertThat(res.rowsWritten()).isEqualTo(rows.length);
                for (int r = 0; r < rows.length; r++) {
                    for (int i = 0; i < 4; i++) {
                        assertThat(out.getReal(r * 4L + i)).as("simd %s %s row %d value %d", simd, policy, r, i)
                                .isCloseTo(want[r][i], within(1e-15));
                    }
                }
                double[] x = {5e-324, 0, 5e-324, 0};
                double[] re = new double[4];
                double[] im = new double[4];
                (simd ? VectorKernels.INSTANCE : ScalarKernels.INSTANCE).amplitude(x, 4, 4, re, im);
                assertThat(re).as("the kernels alone").containsExactly(new double[] {Math.sqrt(0.5), 0, Math.sqrt(0.5), 0}, within(1e-15));
            }
        }
    }

    @Test
    void float64RowsEncodeIntoComplex128Batches() {
        Block in = arena.allocate(DType.F64, 2, 4);
        for (int i = 0; i < 8; i++) {
            in.setDouble(i, i + 1);
        }
        Block out = arena.allocate(DType.C128, 2, 4);
        Encoder.of(Encoding.AMPLITUDE, 2).encodeBatch(in, out, 0, BadRowPolicy.FAIL);
        double norm1 = Math.sqrt(1 + 4 + 9 + 16);
        assertThat(out.getReal(3)).isCloseTo(4 / norm1, within(1e-15));
        double norm2 = Math.sqrt(25 + 36 + 49 + 64);
        assertThat(out.getReal(4)).isCloseTo(5 / norm2, within(1e-15));
    }
}
