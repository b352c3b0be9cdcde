package dev.penstock.quantum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EncodePipelineTest {
    private HostArena arena;
    private CpuDevice device;
    private long liveBefore;

    @BeforeEach
    void open() {
        liveBefore = Memory.liveBytes();
        arena = Memory.newSharedArena("pipeline-test");
        device = new CpuDevice();
    }

    @AfterEach
    void close() {
        device.close();
        arena.close();
        assertThat(Memory.liveBytes()).as("every pool and buffer freed").isEqualTo(liveBefore);
    }

    /// The pipeline under test (the device path overrides it).
    EncodeSummary run(CpuDevice device, RowSource source, RowSink sink, EncodePipeline.Config cfg) throws Exception {
        return EncodePipeline.run(device, source, sink, cfg);
    }

    /// An in-memory source whose reads finish out of order and can fail at one row.
    private static RowSource source(Block rows, long failAtRow) {
        RowSource plain = RowSources.of(rows);
        return new RowSource() {
            @Override
            public long rows() {
                return plain.rows();
            }

            @Override
            public int rowLength() {
                return plain.rowLength();
            }

            @Override
            public DType dtype() {
                return plain.dtype();
            }

            @Override
            public void read(long first, int count, MemorySegment dst) throws Exception {
                if (failAtRow >= first && failAtRow < first + count) {
                    throw new java.io.IOException("bad sector under row " + failAtRow);
                }
                Thread.sleep(first % 3); // reads finish out of order
                plain.read(first, count, dst);
            }
        };
    }

    /// Collects the real parts of every written state, row by row.
    private static final class Collecting implements RowSink {
        final List<double[]> states = new ArrayList<>();

        @Override
        public void write(Block s) {
            long n = s.shape(1);
            for (long r = 0; r < s.shape(0); r++) {
                double[] row = new double[(int) n];
                for (int i = 0; i < n; i++) {
                    row[i] = s.getReal(r * n + i);
                }
                states.add(row);
            }
        }
    }

    private Block randomRows(int rows, int len, DType t, long seed) {
        Block b = arena.allocate(t, rows, len);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (long i = 0; i < b.elementCount(); i++) {
            double v = rnd.nextDouble(0.1, 2);
            if (t == DType.F32) {
                b.setFloat(i, (float) v);
            } else {
                b.setDouble(i, v);
            }
        }
        return b;
    }

    @Test
    void everyRowIsEncodedAndWrittenInOrder() throws Exception {
        Block rows = randomRows(1003, 16, DType.F64, 1);
        Collecting sink = new Collecting();
        var cfg = new EncodePipeline.Config(Encoding.AMPLITUDE, 4, DType.C128, 64, 3, 4, BadRowPolicy.FAIL);
        EncodeSummary s = run(device, source(rows, -1), sink, cfg);
        assertThat(s.rowsRead()).isEqualTo(1003);
        assertThat(s.rowsWritten()).isEqualTo(1003);
        assertThat(sink.states).hasSize(1003);
        Block want = arena.allocate(DType.C128, 1003, 16);
        Encoder.of(Encoding.AMPLITUDE, 4, false).encodeBatch(rows, want, 0, BadRowPolicy.FAIL);
        for (int r = 0; r < 1003; r++) {
            for (int i = 0; i < 16; i++) {
                assertThat(sink.states.get(r)[i]).as("row %d amplitude %d", r, i).isCloseTo(want.getReal(r * 16L + i), within(1e-14));
            }
        }
        assertThat(s.transfer().chunks()).isEqualTo(16);
    }

    @Test
    void skipWritesEveryGoodRowInOrderAndListsTheBadOnesAcrossChunks() throws Exception {
        Block rows = randomRows(200, 4, DType.F32, 2);
        for (long bad : new long[] {5, 63, 64, 199}) {
            for (int i = 0; i < 4; i++) {
                rows.setFloat(bad * 4 + i, 0); // zero norm
            }
        }
        Collecting sink = new Collecting();
        var cfg = new EncodePipeline.Config(Encoding.AMPLITUDE, 2, DType.C64, 32, 2, 3, BadRowPolicy.SKIP);
        EncodeSummary s = run(device, source(rows, -1), sink, cfg);
        assertThat(s.skipped()).extracting(EncodingException::row).containsExactly(5L, 63L, 64L, 199L);
        assertThat(s.rowsWritten()).isEqualTo(196);
        assertThat(sink.states).hasSize(196);
        // the state after the skipped row 5 is row 6's
        double norm6 = 0;
        for (int i = 0; i < 4; i++) {
            norm6 += rows.getFloat(24 + i) * (double) rows.getFloat(24 + i);
        }
        assertThat(sink.states.get(5)[0]).isCloseTo(rows.getFloat(24) / Math.sqrt(norm6), within(1e-6));
    }

    @Test
    void failStopsAtTheFirstBadRowAfterWritingTheRowsBeforeIt() throws Exception {
        Block rows = randomRows(300, 4, DType.F64, 3);
        rows.setDouble(150 * 4 + 2, Double.NaN);
        Collecting sink = new Collecting();
        var cfg = new EncodePipeline.Config(Encoding.AMPLITUDE, 2, DType.C128, 32, 2, 2, BadRowPolicy.FAIL);
        assertThatThrownBy(() -> run(device, source(rows, -1), sink, cfg))
                .isInstanceOf(EncodingException.class).hasMessageContaining("row 150").hasMessageContaining("NaN");
        assertThat(sink.states).as("rows 0-149 were written").hasSize(150);
    }

    @Test
    void aReadErrorSurfacesNamingTheChunk() {
        Block rows = randomRows(100, 4, DType.F64, 4);
        var cfg = new EncodePipeline.Config(Encoding.AMPLITUDE, 2, DType.C128, 10, 2, 2, BadRowPolicy.FAIL);
        assertThatThrownBy(() -> run(device, source(rows, 57), new Collecting(), cfg))
                .hasMessageContaining("chunk 5").hasMessageContaining("bad sector under row 57");
    }

    /// The host memory a CPU run holds is what `hostBytes` (the preflight's figure) says: the
    /// read pool whose buffers the device copies from, the device slots and the state pool —
    /// and no staging pool besides.
    @Test
    void theMemoryARunHoldsIsWhatThePreflightCounts() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(getClass() == EncodePipelineTest.class, "the host-encoder pipeline's figure");
        Block rows = randomRows(1000, 512, DType.F64, 5);
        long before = Memory.liveBytes();
        long[] peak = {0};
        RowSink sink = s -> peak[0] = Math.max(peak[0], Memory.liveBytes() - before);
        for (int ioThreads : new int[] {1, 3}) {
            var cfg = new EncodePipeline.Config(Encoding.AMPLITUDE, 9, DType.C128, 64, 3, ioThreads, BadRowPolicy.FAIL);
            peak[0] = 0;
            EncodePipeline.run(device, source(rows, -1), sink, cfg);
            assertThat(peak[0]).as("%d I/O threads", ioThreads).isEqualTo(EncodePipeline.hostBytes(1000, 512, DType.F64, cfg));
        }
    }

    @Test
    void invalidSettingsNameTheParameter() {
        assertThatThrownBy(() -> new EncodePipeline.Config(Encoding.ANGLE, 2, DType.F64, 1, 1, 1, BadRowPolicy.FAIL))
                .hasMessageStartingWith("output: states are c64");
        assertThatThrownBy(() -> new EncodePipeline.Config(Encoding.ANGLE, 2, DType.C64, 0, 1, 1, BadRowPolicy.FAIL))
                .hasMessageStartingWith("rowsPerChunk must be at least 1");
    }
}
