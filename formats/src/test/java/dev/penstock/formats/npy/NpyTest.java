package dev.penstock.formats.npy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.testing.Python;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpyTest {
    @TempDir
    Path dir;
    private HostArena arena;

    @BeforeEach
    void open() {
        arena = Memory.newSharedArena("npy-test");
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private static void requireNumpy() {
        assumeTrue(Python.required() || Python.has("numpy"), "NumPy (python3-numpy) is not installed");
    }

    /// Element i of the test arrays: the same formula on both sides, exact in float and double
    /// (transcendental functions differ by an ulp between Java and NumPy).
    private static double value(long i) {
        return i * 1.5 - 7 + (i % 5) * 0.125;
    }

    @Test
    void numpyReadsBackExactlyWhatWasWrittenForEveryType() throws Exception {
        requireNumpy();
        for (DType t : new DType[] {DType.F32, DType.F64, DType.C64, DType.C128}) {
            Block b = arena.allocate(t, 3, 5);
            for (long i = 0; i < 15; i++) {
                switch (t) {
                    case F32 -> b.setFloat(i, (float) value(i));
                    case F64 -> b.setDouble(i, value(i));
                    default -> b.setComplex(i, value(i), -value(i) / 3);
                }
            }
            Path f = dir.resolve("a-" + t.label() + ".npy");
            NpyWriter.write(f, b);
            String script = """
                    import sys, numpy as np
                    a = np.load(sys.argv[1])
                    i = np.arange(15, dtype=np.float64)
                    v = i * 1.5 - 7 + (i % 5) * 0.125
                    kind = sys.argv[2]
                    if kind == 'f32': want = v.astype(np.float32)
                    elif kind == 'f64': want = v
                    elif kind == 'c64': want = (v + 1j * (-v / 3)).astype(np.complex64)
                    else: want = v + 1j * (-v / 3)
                    assert a.shape == (3, 5), a.shape
                    assert a.dtype == want.dtype, (a.dtype, want.dtype)
                    assert np.array_equal(a.reshape(-1), want), (a, want)
                    print('OK', a.dtype, a.shape)
                    """;
            Python.Result r = Python.run(script, f.toString(), t.label());
            assertThat(r.output()).as("numpy on %s", t).contains("OK");
            assertThat(r.exitCode()).isZero();
        }
    }

    @Test
    void filesWrittenByNumpyInFormatVersionsOneAndTwoAreMappedExactly() throws Exception {
        requireNumpy();
        Path v1 = dir.resolve("v1.npy");
        Path v2 = dir.resolve("v2.npy");
        Python.Result r = Python.run("""
                import sys, numpy as np
                i = np.arange(24, dtype=np.float64)
                a = (i * 1.5 - 7 + (i % 5) * 0.125).reshape(2, 3, 4)
                np.save(sys.argv[1], a)
                with open(sys.argv[2], 'wb') as f:
                    np.lib.format.write_array(f, a.astype(np.float32), version=(2, 0))
                print('written')
                """, v1.toString(), v2.toString());
        assertThat(r.output()).contains("written");
        try (NpyFile f = NpyFile.open(v1)) {
            assertThat(f.dtype()).isEqualTo(DType.F64);
            assertThat(f.shape()).containsExactly(2, 3, 4);
            for (long i = 0; i < 24; i++) {
                assertThat(f.block().getDouble(i)).isEqualTo(value(i));
            }
        }
        try (NpyFile f = NpyFile.open(v2)) {
            assertThat(f.dtype()).isEqualTo(DType.F32);
            assertThat(Files.readAllBytes(v2)[6]).as("format version 2").isEqualTo((byte) 2);
            for (long i = 0; i < 24; i++) {
                assertThat(f.block().getFloat(i)).isEqualTo((float) value(i));
            }
        }
    }

    @Test
    void aStreamedFileGetsItsFinalRowCount() throws Exception {
        requireNumpy();
        Path f = dir.resolve("stream.npy");
        try (NpyWriter w = NpyWriter.open(f, DType.C128, 4)) {
            for (int chunk = 0; chunk < 3; chunk++) {
                Block rows = arena.allocate(DType.C128, chunk + 1, 4);
                for (long i = 0; i < rows.elementCount(); i++) {
                    rows.setComplex(i, chunk, i);
                }
                w.append(rows);
            }
            assertThat(w.rows()).isEqualTo(6);
            assertThat(f).as("nothing at the destination before commit").doesNotExist();
            w.commit();
        }
        Python.Result r = Python.run("""
                import sys, numpy as np
                a = np.load(sys.argv[1])
                assert a.shape == (6, 4) and a.dtype == np.complex128, (a.shape, a.dtype)
                assert a[5, 3] == 2 + 11j, a[5, 3]
                print('OK')
                """, f.toString());
        assertThat(r.output()).contains("OK");
        try (NpyFile back = NpyFile.open(f)) {
            assertThat(back.shape()).containsExactly(6, 4);
            assertThat(back.header().dataOffset() % 64).isZero();
        }
    }

    @Test
    void aFileThatIsNotNpyIsRejectedNamingTheFileAndWhatWasExpected() throws Exception {
        Path f = dir.resolve("not.npy");
        Files.writeString(f, "PAR1 this is a parquet file, honestly");
        assertThatThrownBy(() -> NpyFile.open(f)).isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("not.npy").hasMessageContaining("byte 0").hasMessageContaining("magic string")
                .hasMessageContaining("PAR1");
    }

    @Test
    void aTruncatedFileIsRejectedWithTheBytesExpectedAndFound() throws Exception {
        Block b = arena.allocate(DType.F64, 10, 10);
        Path f = dir.resolve("t.npy");
        NpyWriter.write(f, b);
        byte[] all = Files.readAllBytes(f);
        Files.write(f, java.util.Arrays.copyOf(all, all.length - 100));
        assertThatThrownBy(() -> NpyFile.open(f)).isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("t.npy").hasMessageContaining("800 bytes of data").hasMessageContaining("truncated");
    }

    @Test
    void unsupportedLayoutsAndTypesAreRejectedSayingWhatToDo() throws Exception {
        assertThatThrownBy(() -> NpyFile.open(header("big.npy", "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", 16)))
                .hasMessageContaining("'>f8'").hasMessageContaining("big-endian").hasMessageContaining("astype('<f8')");
        assertThatThrownBy(() -> NpyFile.open(header("fortran.npy", "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", 32)))
                .hasMessageContaining("Fortran order").hasMessageContaining("ascontiguousarray");
        assertThatThrownBy(() -> NpyFile.open(header("str.npy", "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", 24)))
                .hasMessageContaining("'<U3'").hasMessageContaining("byte 10");
        assertThatThrownBy(() -> NpyFile.open(header("shape.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (two,), }", 16)))
                .hasMessageContaining("shape of non-negative integers");
    }

    /// A hand-made v1 file with the given header dict and `dataBytes` zero bytes of data.
    private Path header(String name, String dict, int dataBytes) throws Exception {
        byte[] d = dict.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        int total = (10 + d.length + 1 + 63) / 64 * 64;
        byte[] h = new byte[total + dataBytes];
        System.arraycopy(NpyHeader.MAGIC, 0, h, 0, 6);
        h[6] = 1;
        h[8] = (byte) (total - 10);
        h[9] = (byte) ((total - 10) >> 8);
        System.arraycopy(d, 0, h, 10, d.length);
        java.util.Arrays.fill(h, 10 + d.length, total - 1, (byte) ' ');
        h[total - 1] = '\n';
        Path f = dir.resolve(name);
        Files.write(f, h);
        return f;
    }
}
