package dev.penstock.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.testing.ParquetFiles;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The Python package's datasets seen from the JVM side (python/tests drive them from Python):
/// Parquet rows, compressed (decoded once) and uncompressed (read in place); samples of several
/// shapes packed into one block with each one's shape.
class PyDatasetTest {
    @TempDir
    Path dir;

    private static List<double[]> batches(PyDataset ds, int batchSize) {
        List<double[]> out = new ArrayList<>();
        try (PyLoader l = new PyLoader(ds, batchSize, false, 0, false, 3, 2)) {
            l.begin();
            for (ByteBuffer b; (b = l.next()) != null; ) {
                double[] v = new double[b.remaining() / 8];
                b.asDoubleBuffer().get(v);
                out.add(v);
            }
        }
        return out;
    }

    @Test
    void parquetRowsAreSamplesCompressedOrNot() throws Exception {
        for (CompressionCodecName codec : List.of(CompressionCodecName.ZSTD, CompressionCodecName.SNAPPY,
                CompressionCodecName.UNCOMPRESSED)) {
            Path pq = ParquetFiles.compressed(dir.resolve(codec + ".parquet"), 250, codec);
            try (PyDataset ds = PyDataset.rows(pq.toString(), List.of(), null, "float64", null, null, 0)) {
                assertThat(ds.size()).isEqualTo(250);
                assertThat(ds.shape()).containsExactly(3);
                List<double[]> bs = batches(ds, 64);
                assertThat(bs).hasSize(4);
                int r = 0;
                for (double[] b : bs) {
                    for (int i = 0; i < b.length; i += 3, r++) {
                        assertThat(new double[] {b[i], b[i + 1], b[i + 2]}).as("%s row %d", codec, r)
                                .containsExactly(r + 1, 2.0 * r + 1, 3.0 * r + 1);
                    }
                }
                assertThat(r).isEqualTo(250);
            }
        }
        Path pq = ParquetFiles.compressed(dir.resolve("zx.parquet"), 10, CompressionCodecName.ZSTD);
        try (PyDataset ds = PyDataset.rows(pq.toString(), List.of("z", "x"), null, "float64", null, null, 0)) {
            assertThat(batches(ds, 10).getFirst()).startsWith(1, 1, 4, 2);
        }
    }

    @Test
    void samplesOfSeveralShapesArePackedWithTheirShapes() throws Exception {
        List<String> paths = new ArrayList<>();
        for (int n : new int[] {3, 5, 1, 4}) {
            Path f = dir.resolve("s" + n + ".npy");
            try (var arena = dev.penstock.memory.Memory.newSharedArena("test")) {
                var x = arena.allocate(dev.penstock.memory.DType.F64, n, 2);
                for (int i = 0; i < n; i++) {
                    x.setDouble(2L * i, n * 10 + i);
                    x.setDouble(2L * i + 1, -(n * 10 + i));
                }
                dev.penstock.formats.npy.NpyWriter.write(f, x);
            }
            paths.add(f.toString());
        }
        try (PyDataset ds = PyDataset.files(paths, "float64", null, null, 0)) {
            assertThat(ds.ragged()).isTrue();
            assertThat(ds.shape()).containsExactly(-1, 2);
            try (PyLoader l = new PyLoader(ds, 3, false, 0, false, 2, 2)) {
                l.begin();
                ByteBuffer b = l.next();
                assertThat(l.sampleShapes()).isDeepEqualTo(new long[][] {{3, 2}, {5, 2}, {1, 2}});
                double[] v = new double[b.remaining() / 8];
                b.asDoubleBuffer().get(v);
                assertThat(v).hasSize(18).startsWith(30, -30, 31, -31, 32, -32, 50, -50).endsWith(10, -10);
                b = l.next();
                assertThat(l.sampleShapes()).isDeepEqualTo(new long[][] {{4, 2}});
                assertThat(l.next()).isNull();
            }
        }
        assertThatThrownBy(() -> PyDataset.files(paths, "float64", new double[] {1, 2, 3}, null, 0))
                .hasMessageContaining("mean and std take 1 or 2 values");
        try (PyDataset ds = PyDataset.files(paths, "float64", null, null, 1)) {
            assertThat(ds.ragged()).isFalse();
            assertThat(ds.shape()).containsExactly(1, 2);
        }
    }
}
