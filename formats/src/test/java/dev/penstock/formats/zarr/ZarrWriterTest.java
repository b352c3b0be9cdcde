package dev.penstock.formats.zarr;

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
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Zarr v2 stores checked with zarr-python as Debian ships it (2.13), which `.ci/run` installs.
class ZarrWriterTest {
    @TempDir
    Path dir;
    private HostArena arena;

    @BeforeEach
    void open() {
        arena = Memory.newSharedArena("zarr-test");
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private static void requireZarr() {
        assumeTrue(Python.required() || Python.has("zarr"), "zarr-python (python3-zarr) is not installed");
    }

    /// Writes `rows` rows of width 6 in appends of 7, element (r, j) = r·10 + j (+ (r - j)·i).
    private Path write(DType t, long rows, int chunkRows, int level) throws Exception {
        Path store = dir.resolve(t.label() + "-" + level + ".zarr");
        try (ZarrWriter w = ZarrWriter.open(store, t, 6, chunkRows, level, Map.of("encoding", "amplitude", "qubits", 3))) {
            for (long first = 0; first < rows; first += 7) {
                int n = (int) Math.min(7, rows - first);
                Block b = arena.allocate(t, n, 6);
                for (int r = 0; r < n; r++) {
                    for (int j = 0; j < 6; j++) {
                        long row = first + r;
                        long i = r * 6L + j;
                        switch (t) {
                            case F32 -> b.setFloat(i, row * 10 + j);
                            case F64 -> b.setDouble(i, row * 10 + j);
                            default -> b.setComplex(i, row * 10 + j, row - j);
                        }
                    }
                }
                w.append(b);
            }
            assertThat(w.rows()).isEqualTo(rows);
            w.commit();
        }
        return store;
    }

    @Test
    void zarrPythonReadsEveryTypeCompressedOrNotWithAPaddedEdgeChunk() throws Exception {
        requireZarr();
        for (DType t : new DType[] {DType.C64, DType.C128, DType.F64}) {
            for (int level : new int[] {1, -1}) {
                Path store = write(t, 45, 16, level); // 3 chunks, the last holds 13 of 16 rows
                Python.Result r = Python.run("""
                        import sys, numpy as np, zarr
                        z = zarr.open(sys.argv[1], mode='r')
                        a = z[:]
                        rows = np.arange(45)[:, None]; cols = np.arange(6)[None, :]
                        want = rows * 10 + cols
                        if np.iscomplexobj(a): want = want + 1j * (rows - cols)
                        assert a.shape == (45, 6), a.shape
                        assert z.chunks == (16, 6), z.chunks
                        assert a.dtype == np.dtype(sys.argv[2]), a.dtype
                        assert np.array_equal(a, want.astype(a.dtype)), a
                        assert z.attrs['encoding'] == 'amplitude' and z.attrs['qubits'] == 3, dict(z.attrs)
                        print('OK', a.dtype, z.compressor)
                        """, store.toString(), t.numpyDescr());
                assertThat(r.output()).as("%s level %d", t, level).contains("OK");
            }
        }
    }

    @Test
    void chunksArePaddedAndOneFilePerChunk() throws Exception {
        Path store = write(DType.F32, 20, 8, -1);
        assertThat(Files.exists(store.resolve("0.0"))).isTrue();
        assertThat(Files.exists(store.resolve("2.0"))).isTrue();
        assertThat(Files.exists(store.resolve("3.0"))).isFalse();
        assertThat(Files.size(store.resolve("2.0"))).as("edge chunk padded to 8 rows").isEqualTo(8 * 6 * 4);
        assertThat(Files.readString(store.resolve(".zarray"))).contains("\"shape\": [20, 6]").contains("\"compressor\": null");
        // rewriting a shorter array removes the old chunks
        write(DType.F32, 5, 8, -1);
        assertThat(Files.exists(store.resolve("1.0"))).isFalse();
        assertThat(Files.readString(store.resolve(".zarray"))).contains("\"shape\": [5, 6]");
    }

    @Test
    void badSettingsAreRejectedNamingTheStore() {
        assertThatThrownBy(() -> ZarrWriter.open(dir.resolve("x.zarr"), DType.F32, 4, 0, 1, Map.of()))
                .hasMessageContaining("x.zarr").hasMessageContaining("'chunkRows'");
        assertThatThrownBy(() -> ZarrWriter.open(dir.resolve("y.zarr"), DType.F32, 4, 8, 12, Map.of()))
                .hasMessageContaining("zlib level");
    }

    @Test
    void aWriterClosedWithoutCommitLeavesThePreviousStoreAsItWas() throws Exception {
        Path store = write(DType.F32, 20, 8, -1);
        String before = Files.readString(store.resolve(".zarray"));
        try (ZarrWriter w = ZarrWriter.open(store, DType.F32, 6, 8, -1, Map.of())) {
            w.append(arena.allocate(DType.F32, 9, 6));
            // no commit: a failure or an interrupt
        }
        assertThat(Files.readString(store.resolve(".zarray"))).isEqualTo(before);
        assertThat(Files.exists(store.resolve("2.0"))).isTrue();
        try (var siblings = Files.list(dir)) {
            assertThat(siblings.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".penstock-"));
        }
    }

    @Test
    void attributesAreAsciiJsonWhateverTheirCharacters() throws Exception {
        Path store = dir.resolve("a.zarr");
        try (ZarrWriter w = ZarrWriter.open(store, DType.F32, 1, 8, -1, Map.of("units", "Å", "source", "données \"1\".npy"))) {
            w.commit();
        }
        String attrs = Files.readString(store.resolve(".zattrs"), java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(attrs).contains("\\u00c5").contains("donn\\u00e9es \\\"1\\\".npy");
        assertThat(attrs.chars()).allMatch(c -> c < 0x80);
    }
}
