package dev.penstock.formats.hdf5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.io.BadInputException;
import dev.penstock.memory.DType;
import dev.penstock.testing.Python;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// HDF5 inputs written by h5py (Debian's python3-h5py): a contiguous float64 dataset, a chunked
/// gzip-compressed float32 one in a group, an int32 one — each read in blocks of rows of several
/// sizes equals, value for value, what NumPy wrote beside it as `.npy`; and every bad input is
/// one `BadInputException` line naming the file (and the dataset).
class Hdf5RowsTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void write() throws Exception {
        assumeTrue(Python.required() || Python.has("h5py"), "h5py (python3-h5py) is not installed");
        Python.Result r = Python.run("""
                import sys, h5py, numpy as np
                d = sys.argv[1]
                rng = np.random.default_rng(7)
                a = rng.standard_normal((1000, 8))
                b = rng.standard_normal((777, 16)).astype(np.float32)
                b[5, 3] = np.nan
                c = rng.integers(-1000, 1000, (300, 4), dtype=np.int32)
                with h5py.File(d + "/one.h5", "w") as f:
                    f.create_dataset("features", data=a)
                    f.attrs["note"] = "one dataset"
                with h5py.File(d + "/many.h5", "w") as f:
                    f.create_dataset("raw", data=a)
                    g = f.create_group("train")
                    g.create_dataset("x", data=b, chunks=(64, 16), compression="gzip", compression_opts=6)
                    g.create_dataset("labels", data=np.arange(777))
                    f.create_dataset("counts", data=c, chunks=(50, 4), compression="gzip")
                    f.create_dataset("cube", data=np.zeros((4, 3, 2)))
                    f.create_dataset("names", data=np.array([b"a", b"b"]))
                with h5py.File(d + "/none.h5", "w") as f:
                    f.create_dataset("line", data=np.arange(10.0))
                with h5py.File(d + "/sparse.h5", "w") as f:  # chunks never written hold the fill value
                    x = f.create_dataset("x", shape=(1500, 4), dtype="f8", chunks=(100, 4), fillvalue=0.25)
                    x[0:300] = a[0:300, 0:4]
                    x[1234] = a[999, 0:4]
                    z = f.create_dataset("z", shape=(200, 5), dtype="f4", chunks=(64, 2), fillvalue=-1.5)
                    z[0:10, 0:2] = 1
                    z[150:170, 3:5] = 2
                    i = f.create_dataset("i", shape=(100, 3), dtype="i4", chunks=(10, 3), fillvalue=7)
                    i[0:5] = 1
                with h5py.File(d + "/sparse.h5") as f:
                    np.save(d + "/sparse-x.npy", f["x"][:])
                    np.save(d + "/sparse-z.npy", f["z"][:])
                    np.save(d + "/sparse-i.npy", f["i"][:].astype(np.float64))
                np.save(d + "/a.npy", a)
                np.save(d + "/b.npy", b)
                np.save(d + "/c.npy", c.astype(np.float64))
                """, dir.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        byte[] whole = Files.readAllBytes(dir.resolve("many.h5"));
        Files.write(dir.resolve("truncated.h5"), Arrays.copyOf(whole, whole.length / 2));
        Files.writeString(dir.resolve("text.h5"), "this is not an HDF5 file\n");
    }

    /// Every row of `rows`, read `block` rows at a time, as bytes.
    private static byte[] readAll(Hdf5Rows rows, int block) {
        long rowBytes = (long) rows.rowLength() * rows.dtype().byteSize();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment all = a.allocate(rows.rows() * rowBytes, 8);
            for (long first = 0; first < rows.rows(); first += block) {
                int count = (int) Math.min(block, rows.rows() - first);
                rows.read(first, count, all.asSlice(first * rowBytes, count * rowBytes));
            }
            return all.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static byte[] npy(String name) throws Exception {
        try (NpyFile f = NpyFile.open(dir.resolve(name))) {
            return f.block().segment().toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void aContiguousFloat64DatasetReadsAsNumPyWroteIt() throws Exception {
        try (Hdf5Rows rows = Hdf5Rows.open(dir.resolve("one.h5"), null)) {
            assertThat(rows.dataset()).isEqualTo("/features");
            assertThat(rows.rows()).isEqualTo(1000);
            assertThat(rows.rowLength()).isEqualTo(8);
            assertThat(rows.dtype()).isEqualTo(DType.F64);
            byte[] want = npy("a.npy");
            for (int block : new int[] {1000, 100, 37, 1}) {
                assertThat(readAll(rows, block)).as("blocks of %d rows", block).isEqualTo(want);
            }
        }
    }

    @Test
    void aChunkedGzipFloat32DatasetInAGroupReadsAsNumPyWroteItNaNIncluded() throws Exception {
        try (Hdf5Rows rows = Hdf5Rows.open(dir.resolve("many.h5"), "/train/x")) {
            assertThat(rows.rows()).isEqualTo(777);
            assertThat(rows.rowLength()).isEqualTo(16);
            assertThat(rows.dtype()).isEqualTo(DType.F32);
            byte[] want = npy("b.npy");
            for (int block : new int[] {777, 64, 100, 13}) {
                assertThat(readAll(rows, block)).as("blocks of %d rows", block).isEqualTo(want);
            }
        }
    }

    @Test
    void anIntegerDatasetReadsAsFloat64() throws Exception {
        try (Hdf5Rows rows = Hdf5Rows.open(dir.resolve("many.h5"), "counts")) {
            assertThat(rows.dtype()).isEqualTo(DType.F64);
            assertThat(readAll(rows, 33)).isEqualTo(npy("c.npy"));
        }
    }

    @Test
    void chunksNeverWrittenReadAsTheFillValueAsH5pyReadsThem() throws Exception {
        for (String name : new String[] {"x", "z", "i"}) {
            try (Hdf5Rows rows = Hdf5Rows.open(dir.resolve("sparse.h5"), name)) {
                byte[] want = npy("sparse-" + name + ".npy");
                for (int block : new int[] {(int) rows.rows(), 64, 37, 1}) {
                    assertThat(readAll(rows, block)).as("%s in blocks of %d rows", name, block).isEqualTo(want);
                }
            }
        }
    }

    @Test
    void badInputsAreOneLineNamingTheFileAndTheDataset() {
        Path many = dir.resolve("many.h5");
        assertThatThrownBy(() -> Hdf5Rows.open(many, null)).isInstanceOf(BadInputException.class)
                .hasMessageContaining(many.toString()).hasMessageContaining("3 2-D numeric datasets (/counts, /raw, /train/x); name one with --dataset");
        assertThatThrownBy(() -> Hdf5Rows.open(many, "/train/y")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("no dataset '/train/y'").hasMessageContaining("/train/x");
        assertThatThrownBy(() -> Hdf5Rows.open(many, "/train")).isInstanceOf(BadInputException.class).hasMessageContaining("(it is a group)");
        assertThatThrownBy(() -> Hdf5Rows.open(many, "/cube")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("dataset /cube: expected a 2-D [rows, values] dataset, found shape [4, 3, 2]");
        assertThatThrownBy(() -> Hdf5Rows.open(many, "/train/labels")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("found shape [777]");
        assertThatThrownBy(() -> Hdf5Rows.open(dir.resolve("none.h5"), null)).isInstanceOf(BadInputException.class)
                .hasMessageContaining("no 2-D numeric dataset in the file");
        assertThatThrownBy(() -> Hdf5Rows.open(dir.resolve("text.h5"), null)).isInstanceOf(BadInputException.class)
                .hasMessageContaining(dir.resolve("text.h5") + ": not a readable HDF5 file");
        for (Throwable t : new Throwable[] {catching(() -> readAll(Hdf5Rows.open(dir.resolve("truncated.h5"), "/train/x"), 100))}) {
            assertThat(t).isInstanceOf(BadInputException.class).hasMessageContaining(dir.resolve("truncated.h5").toString());
            assertThat(t.getMessage()).doesNotContain("\n");
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private static Throwable catching(Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            return t;
        }
        throw new AssertionError("no exception");
    }
}
