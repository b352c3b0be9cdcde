package dev.penstock.formats.zarr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.testing.NodeJs;
import dev.penstock.testing.Python;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Groups with subgroups, numeric and string arrays, in both formats: v2 read by zarr-python
/// 2.13 (Debian's), v3 read by zarrita (npm), each an implementation independent of the writer.
class ZarrGroupTest {
    @TempDir
    Path dir;

    private static final String[] WORDS = {"fire:12,nve:100", "", "Å and ü", "x".repeat(300), "quarantined \"q\""};

    /// A group `attrs` {title, units {energy: eV}}: `values` f64 [11, 2] (row r: r, -r/4) in
    /// chunks of 4, `ids` i64 [11, 1], `pbc` u8 [11, 3], `info/words` strings [11, 1] in chunks of 4
    /// (row r: WORDS[r % 5]), `c` c128 [3, 1] (k + 2ki).
    private Path write(ZarrFormat format, int level) throws Exception {
        Path store = dir.resolve(format + "-" + level + ".zarr");
        try (ZarrGroup g = ZarrGroup.create(store, format, Map.of("title", "test Å", "units", Map.of("energy", "eV"), "n", 11))) {
            ZarrWriter values = g.array("values", DType.F64, 2, 4, level, Map.of("units", "Å"));
            ZarrWriter ids = g.array("ids", DType.I64, 1, 4, level, Map.of());
            ZarrWriter pbc = g.array("pbc", DType.U8, 3, 4, level, Map.of());
            g.group("info", Map.of("what", "per-system info"));
            ZarrWriter words = g.strings("info/words", 4, level, Map.of());
            ZarrWriter pairs = g.strings("pairs", 2, 3, level, Map.of());
            ZarrWriter c = g.array("c", DType.C128, 1, 2, level, Map.of());
            for (int r = 0; r < 11; r++) {
                values.append(Block.wrap(MemorySegment.ofArray(new double[] {r, -r / 4.0}), DType.F64, null, 1, 2));
                ids.append(Block.wrap(MemorySegment.ofArray(new long[] {1000L + r}), DType.I64, null, 1, 1));
                pbc.append(Block.wrap(MemorySegment.ofArray(new byte[] {1, 0, (byte) (r % 2)}), DType.U8, null, 1, 3));
                words.appendStrings(WORDS[r % WORDS.length]);
                pairs.appendStrings("a" + r, "b" + r);
            }
            c.append(Block.wrap(MemorySegment.ofArray(new double[] {0, 0, 1, 2, 2, 4}), DType.C128, null, 3, 1));
            assertThatThrownBy(() -> words.append(Block.wrap(MemorySegment.ofArray(new double[1]), DType.F64, null, 1, 1)))
                    .hasMessageContaining("cannot append");
            assertThatThrownBy(() -> ids.appendStrings("x")).hasMessageContaining("cannot append 1 strings");
            assertThatThrownBy(() -> pairs.appendStrings("x")).hasMessageContaining("width 2");
            g.commit();
        }
        return store;
    }

    @Test
    void zarrPython2ReadsAV2GroupWithStringsAndSubgroups() throws Exception {
        assumeTrue(Python.required() || Python.has("zarr"), "zarr-python (python3-zarr) is not installed");
        for (int level : new int[] {1, -1}) {
            Path store = write(ZarrFormat.V2, level);
            assertThat(Files.exists(store.resolve("values/.zarray"))).isTrue();
            Python.Result r = Python.run("""
                    import sys, numpy as np, zarr
                    g = zarr.open_group(sys.argv[1], mode='r')
                    assert g.attrs['title'] == 'test \\u00c5' and g.attrs['units'] == {'energy': 'eV'} and g.attrs['n'] == 11, dict(g.attrs)
                    v = g['values'][:]
                    assert v.shape == (11, 2) and np.array_equal(v[:, 0], np.arange(11)) and np.array_equal(v[:, 1], -np.arange(11) / 4), v
                    assert g['values'].attrs['units'] == '\\u00c5'
                    assert np.array_equal(g['ids'][:, 0], 1000 + np.arange(11))
                    p = g['pbc'][:]
                    assert p.dtype == np.uint8 and np.array_equal(p[:, 2], np.arange(11) % 2), p
                    assert g['info'].attrs['what'] == 'per-system info'
                    w = g['info/words'][:, 0]
                    words = ["fire:12,nve:100", "", "\\u00c5 and \\u00fc", "x" * 300, 'quarantined "q"']
                    assert list(w) == [words[k % 5] for k in range(11)], list(w)
                    assert np.array_equal(g['c'][:, 0], [0, 1 + 2j, 2 + 4j])
                    assert g['pairs'].shape == (11, 2) and list(g['pairs'][10]) == ['a10', 'b10'], g['pairs'][:]
                    print('OK')
                    """, store.toString());
            assertThat(r.output()).as("level " + level).contains("OK");
        }
    }

    @Test
    void zarritaReadsAV3Group() throws Exception {
        assumeTrue(NodeJs.available("zarrita") || Python.required(), "zarrita (npm) is not installed");
        for (int level : new int[] {1, -1}) {
            Path store = write(ZarrFormat.V3, level);
            assertThat(Files.exists(store.resolve("zarr.json"))).isTrue();
            assertThat(Files.exists(store.resolve("values/c/2/0"))).as("v3 chunk keys").isTrue();
            assertThat(Files.exists(store.resolve("values/.zarray"))).isFalse();
            Python.Result r = NodeJs.run("""
                    import * as zarr from "zarrita";
                    import FileSystemStore from "@zarrita/storage/fs";
                    const root = zarr.root(new FileSystemStore(process.argv[2]));
                    const check = (ok, what) => { if (!ok) { console.log("FAIL " + what); process.exit(1); } };
                    const g = await zarr.open.v3(root, { kind: "group" });
                    check(g.attrs.title === "test \\u00c5" && g.attrs.units.energy === "eV" && g.attrs.n === 11, JSON.stringify(g.attrs));
                    const values = await zarr.get(await zarr.open.v3(root.resolve("values"), { kind: "array" }));
                    check(values.shape.join() === "11,2", "shape " + values.shape);
                    for (let r = 0; r < 11; r++) {
                      check(values.data[2 * r] === r && values.data[2 * r + 1] === -r / 4, "values row " + r);
                    }
                    const ids = await zarr.get(await zarr.open.v3(root.resolve("ids"), { kind: "array" }));
                    check(ids.data[10] === 1010n, "ids " + ids.data);
                    const pbc = await zarr.get(await zarr.open.v3(root.resolve("pbc"), { kind: "array" }));
                    check(pbc.data instanceof Uint8Array && pbc.data[3 * 9 + 2] === 1 && pbc.data[3 * 8 + 2] === 0, "pbc");
                    const pairs = await zarr.get(await zarr.open.v3(root.resolve("pairs"), { kind: "array" }));
                    check(pairs.shape.join() === "11,2" && pairs.data[20] === "a10" && pairs.data[21] === "b10", "pairs " + pairs.data);
                    const info = await zarr.open.v3(root.resolve("info"), { kind: "group" });
                    check(info.attrs.what === "per-system info", "info attrs");
                    const words = await zarr.get(await zarr.open.v3(root.resolve("info/words"), { kind: "array" }));
                    const expect = ["fire:12,nve:100", "", "\\u00c5 and \\u00fc", "x".repeat(300), 'quarantined "q"'];
                    for (let r = 0; r < 11; r++) {
                      check(words.data[r] === expect[r % 5], "words row " + r + ": " + words.data[r]);
                    }
                    // zarrita has no complex types: the metadata and the chunks read by hand (gunzip: Node's zlib)
                    const fs = await import("node:fs");
                    const zlib = await import("node:zlib");
                    const meta = JSON.parse(fs.readFileSync(process.argv[2] + "/c/zarr.json", "utf8"));
                    check(meta.data_type === "complex128" && JSON.stringify(meta.fill_value) === "[0,0]", "complex metadata");
                    const gz = meta.codecs.length === 2;
                    const part = (k) => { const b = fs.readFileSync(process.argv[2] + "/c/c/" + k + "/0"); return gz ? zlib.gunzipSync(b) : b; };
                    const c = Buffer.concat([part(0), part(1)]);
                    const d = new Float64Array(c.buffer, c.byteOffset, 8);
                    check(Array.from(d.subarray(0, 6)).join() === "0,0,1,2,2,4" && d[6] === 0 && d[7] === 0, "complex " + Array.from(d));
                    console.log("OK");
                    """, store.toString());
            assertThat(r.output()).as("level " + level).contains("OK");
        }
    }

    @Test
    void formatsAndEntries() {
        assertThat(ZarrFormat.parse("3")).isEqualTo(ZarrFormat.V3);
        assertThatThrownBy(() -> ZarrFormat.parse("4")).hasMessageContaining("2 or 3");
        assertThat(List.of(ZarrWriter.isZarrEntry(Path.of("zarr.json")), ZarrWriter.isZarrEntry(Path.of("a/c/0/0")))).containsOnly(true);
    }
}
