package dev.penstock.formats.zarr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.io.BadInputException;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.testing.Python;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/// Zarr arrays written by zarr-python 2.13 (Debian's; `.ci/run` installs it) with every
/// compressor it offers that `ZarrArray` reads, and by `ZarrWriter` (v2 and v3), read back and
/// compared byte for byte with the same array saved by NumPy.
class ZarrArrayTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void write() throws Exception {
        assumeTrue(Python.required() || Python.has("zarr"), "zarr-python (python3-zarr) is not installed");
        Python.Result r = Python.run("""
                import sys, zarr, numpy as np
                from numcodecs import Blosc, Zlib, GZip, Zstd, LZ4, Delta
                d = sys.argv[1]
                rng = np.random.default_rng(3)
                a = rng.standard_normal((1000, 37))              # edge chunks on both axes
                f = rng.standard_normal((300, 3)).astype(np.float32)
                def save(name, x, **kw):
                    z = zarr.open(d + "/" + name + ".zarr", mode="w", shape=x.shape, dtype=kw.pop("dtype", x.dtype), **kw)
                    z[...] = x
                    np.save(d + "/" + name + ".npy", z[...])
                save("default", a, chunks=(128, 16))             # Blosc LZ4, byte shuffle
                save("default-f32", f, chunks=(64, 3))
                save("one-chunk", f)
                for cname in ("lz4", "lz4hc", "zstd", "zlib"):
                    for shuffle in (Blosc.NOSHUFFLE, Blosc.SHUFFLE):
                        save("blosc-%s-%d" % (cname, shuffle), a, chunks=(256, 37), compressor=Blosc(cname=cname, clevel=5, shuffle=shuffle))
                save("blosc-big-block", a, chunks=(1000, 37), compressor=Blosc(cname="lz4", shuffle=Blosc.SHUFFLE, blocksize=4096))
                save("zlib", a, chunks=(100, 10), compressor=Zlib(level=6))
                save("gzip", a, chunks=(100, 10), compressor=GZip(level=6))
                save("zstd", a, chunks=(100, 10), compressor=Zstd(level=3))
                save("lz4", a, chunks=(100, 10), compressor=LZ4())
                save("raw", a, chunks=(100, 10), compressor=None)
                save("big-endian", a, chunks=(300, 37), dtype=">f8")
                save("ints", rng.integers(-5, 5, (50, 4), dtype=np.int32), chunks=(7, 3))
                save("cube", rng.standard_normal((5, 6, 7)), chunks=(2, 4, 3))
                save("line", np.arange(100.0), chunks=(30,))
                save("slashes", a, chunks=(128, 16), dimension_separator="/")
                z = zarr.open(d + "/sparse.zarr", mode="w", shape=(100, 4), chunks=(10, 4), dtype="f8", fill_value=0.5)
                z[20:30] = 1.0
                np.save(d + "/sparse.npy", z[...])
                zarr.open(d + "/nanfill.zarr", mode="w", shape=(10, 2), chunks=(5, 2), dtype="f4", fill_value=np.nan)
                zarr.open(d + "/bitshuffle.zarr", mode="w", shape=(1000, 2), chunks=(500, 2), dtype="f8",
                          compressor=Blosc(shuffle=Blosc.BITSHUFFLE))[...] = 1
                z = zarr.open(d + "/blosclz.zarr", mode="w", shape=(1000, 2), chunks=(500, 2), dtype="f8", compressor=Blosc(cname="blosclz"))
                z[...] = 1
                zarr.open(d + "/delta.zarr", mode="w", shape=(10, 2), dtype="f8", filters=[Delta(dtype="f8")])[...] = 1
                zarr.open(d + "/fortran.zarr", mode="w", shape=(10, 2), dtype="f8", order="F")[...] = 1
                """, dir.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
    }

    /// The array's bytes as `ZarrArray` reads them.
    private static byte[] read(Path store) throws Exception {
        ZarrArray z = ZarrArray.open(store);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment all = a.allocate(Math.max(1, z.byteSize()), 8);
            z.read(all);
            return all.asSlice(0, z.byteSize()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    private static byte[] npy(String name) throws Exception {
        try (NpyFile f = NpyFile.open(dir.resolve(name + ".npy"))) {
            Block b = f.block();
            return b.segment().asSlice(0, b.byteSize()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "default-f32", "one-chunk", "blosc-lz4-0", "blosc-lz4-1", "blosc-lz4hc-0", "blosc-lz4hc-1",
        "blosc-zstd-0", "blosc-zstd-1", "blosc-zlib-0", "blosc-zlib-1", "blosc-big-block", "zlib", "gzip", "zstd", "lz4", "raw", "ints",
        "cube", "line", "slashes", "sparse"})
    void readsWhatZarrPythonWrote(String name) throws Exception {
        ZarrArray z = ZarrArray.open(dir.resolve(name + ".zarr"));
        try (NpyFile f = NpyFile.open(dir.resolve(name + ".npy"))) {
            assertThat(z.shape()).isEqualTo(f.shape());
            assertThat(z.dtype()).isEqualTo(f.dtype());
        }
        assertThat(read(dir.resolve(name + ".zarr"))).isEqualTo(npy(name));
    }

    @Test
    void bigEndianArraysAreReadIntoNativeOrder() throws Exception {
        ZarrArray z = ZarrArray.open(dir.resolve("big-endian.zarr"));
        assertThat(z.dtype()).isEqualTo(DType.F64);
        byte[] expected = npy("default"); // the same values, saved little-endian
        // big-endian.npy is saved as '>f8': compare values, not bytes
        try (NpyFile f = NpyFile.open(dir.resolve("default.npy")); Arena a = Arena.ofConfined()) {
            MemorySegment all = a.allocate(z.byteSize(), 8);
            z.read(all);
            assertThat(all.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(expected);
        }
    }

    @Test
    void chunksNeverWrittenHoldTheFillValue() throws Exception {
        ZarrArray z = ZarrArray.open(dir.resolve("nanfill.zarr"));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment all = a.allocate(z.byteSize(), 8);
            z.read(all);
            for (int i = 0; i < 20; i++) {
                assertThat(all.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i)).isNaN();
            }
        }
    }

    @Test
    void whatIsNotReadIsRefusedInOneLineNamingTheArray() {
        for (var c : Map.of("bitshuffle", "bit shuffle", "blosclz", "BloscLZ", "delta", "filters", "fortran", "Fortran order").entrySet()) {
            Path store = dir.resolve(c.getKey() + ".zarr");
            assertThatThrownBy(() -> read(store)).isInstanceOf(BadInputException.class)
                    .hasMessageStartingWith(store.toString()).hasMessageContaining(c.getValue())
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
        assertThatThrownBy(() -> ZarrArray.open(dir)).isInstanceOf(BadInputException.class).hasMessageContaining("not a Zarr array");
    }

    @Test
    void aDamagedChunkIsNamed() throws Exception {
        Path store = dir.resolve("damaged.zarr");
        Files.createDirectories(store);
        for (String f : new String[] {".zarray", "0.0", "1.0"}) {
            Files.copy(dir.resolve("blosc-zstd-1.zarr").resolve(f), store.resolve(f));
        }
        byte[] chunk = Files.readAllBytes(store.resolve("1.0"));
        Files.write(store.resolve("1.0"), java.util.Arrays.copyOf(chunk, chunk.length / 2));
        assertThatThrownBy(() -> read(store)).isInstanceOf(BadInputException.class).hasMessageContaining("chunk 1.0");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void readsWhatZarrWriterWrote(int format) throws Exception {
        Path store = dir.resolve("writer-" + format + ".zarr");
        try (HostArena arena = Memory.newSharedArena("zarr-array-test");
             ZarrWriter w = ZarrWriter.open(store, ZarrFormat.parse("" + format), DType.F64, 5, 4, 6, Map.of())) {
            Block b = arena.allocate(DType.F64, 11, 5);
            for (int i = 0; i < 55; i++) {
                b.setDouble(i, i * 0.5 - 3);
            }
            w.append(b);
            w.commit();
        }
        ZarrArray z = ZarrArray.open(store);
        assertThat(z.format()).isEqualTo(format);
        assertThat(z.shape()).containsExactly(11, 5);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment all = a.allocate(z.byteSize(), 8);
            z.read(all);
            for (int i = 0; i < 55; i++) {
                assertThat(all.getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, i)).isEqualTo(i * 0.5 - 3);
            }
        }
    }
}
