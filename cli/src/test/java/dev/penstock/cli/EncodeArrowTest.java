package dev.penstock.cli;

import static dev.penstock.cli.MainTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.NodeJs;
import dev.penstock.testing.Ci;
import dev.penstock.testing.Python;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `encode` from Arrow IPC written by Arrow JS: the states and row indices, byte for byte, of the
/// same rows given as `.npy` (NumPy's, from the float64 rows Arrow JS computed, NaN for a null):
/// flat columns over several record batches with nulls (bad rows, skipped and reported), in the
/// file and the stream format, and a fixed-size-list column.
class EncodeArrowTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void write() throws Exception {
        assumeTrue(Ci.required() || (NodeJs.available() && Python.has("numpy")), "Arrow JS or NumPy is not installed");
        Python.Result js = NodeJs.run("""
                import { tableToIPC, Table, vectorFromArray, makeTable, Float64, Float32, Int32, Uint8, FixedSizeList, Field } from 'apache-arrow';
                import { writeFileSync } from 'fs';
                const d = process.argv[2];
                function part(start, n) {
                  const a = [], b = [], c = [], e = [];
                  for (let r = start; r < start + n; r++) {
                    a.push(Math.sin(r) + 1.5); b.push(r % 11 === 4 ? null : Math.fround(Math.cos(r) + 2)); c.push(r % 9 + 1); e.push(r % 200 + 1);
                  }
                  return makeTable({ a: vectorFromArray(a, new Float64()), b: vectorFromArray(b, new Float32()), c: vectorFromArray(c, new Int32()),
                    e: vectorFromArray(e, new Uint8()) });
                }
                const t = new Table([...part(0, 200).batches, ...part(200, 333).batches, ...part(533, 167).batches]);
                writeFileSync(d + '/rows.arrow', tableToIPC(t, 'file'));
                writeFileSync(d + '/rows.arrows', tableToIPC(t, 'stream'));
                const out = new Float64Array(t.numRows * 4);
                for (let r = 0; r < t.numRows; r++) ['a', 'b', 'c', 'e'].forEach((k, j) => { const v = t.getChild(k).get(r); out[4 * r + j] = v === null ? NaN : Number(v); });
                writeFileSync(d + '/rows.bin', Buffer.from(out.buffer));
                const lists = [];
                for (let r = 0; r < 150; r++) lists.push(Array.from({ length: 8 }, (_, k) => 1 + r + k / 4));
                writeFileSync(d + '/lists.feather', tableToIPC(makeTable({ x: vectorFromArray(lists, new FixedSizeList(8, new Field('v', new Float64(), false))) }), 'file'));
                const lo = new Float64Array(lists.flat());
                writeFileSync(d + '/lists.bin', Buffer.from(lo.buffer));
                """, dir.toString());
        assertThat(js.exitCode()).as(js.output()).isZero();
        Python.Result np = Python.run("""
                import sys, numpy as np
                d = sys.argv[1]
                np.save(d + "/rows.npy", np.fromfile(d + "/rows.bin", dtype="<f8").reshape(-1, 4))
                np.save(d + "/lists.npy", np.fromfile(d + "/lists.bin", dtype="<f8").reshape(-1, 8))
                """, dir.toString());
        assertThat(np.exitCode()).as(np.output()).isZero();
    }

    private static void sameFiles(Path a, Path b) throws Exception {
        assertThat(Files.readAllBytes(a)).as("%s = %s", a, b).isEqualTo(Files.readAllBytes(b));
    }

    private static String encode(String in, String out, String... more) {
        String[] args = {"encode", dir.resolve(in).toString(), "--encoding", "amplitude", "--qubits", "2", "--on-bad-row", "skip",
            "--rows-per-chunk", "128", "--out", dir.resolve(out).toString()};
        String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return run(0, all);
    }

    @Test
    void arrowFileAndStreamEncodeAsTheSameRowsFromNpy() throws Exception {
        String npy = encode("rows.npy", "npy.npy");
        assertThat(npy).contains("encoded 636 of").contains("skipped 64 bad rows");
        for (String in : new String[] {"rows.arrow", "rows.arrows"}) {
            String out = encode(in, in + ".npy", "--columns", "a,b,c,e");
            assertThat(out).contains("encoded 636 of").contains("skipped 64 bad rows").contains("row 4: value 1 is NaN");
            sameFiles(dir.resolve(in + ".npy"), dir.resolve("npy.npy"));
            sameFiles(dir.resolve(in + ".npy.rows.npy"), dir.resolve("npy.npy.rows.npy"));
        }
    }

    @Test
    void aFixedSizeListColumnEncodesAsItsRows() throws Exception {
        String[] q3 = {"--qubits", "3"};
        run(0, "encode", dir.resolve("lists.feather").toString(), "--columns", "x", "--encoding", "amplitude", q3[0], q3[1],
                "--out", dir.resolve("l1.npy").toString());
        run(0, "encode", dir.resolve("lists.npy").toString(), "--encoding", "amplitude", q3[0], q3[1], "--out", dir.resolve("l2.npy").toString());
        sameFiles(dir.resolve("l1.npy"), dir.resolve("l2.npy"));
    }

    @Test
    void inspectSaysWhatEncodeWouldRead() {
        assertThat(run(0, "inspect", dir.resolve("rows.arrows").toString()))
                .contains("Arrow IPC, 700 rows in 3 record batches; read by default: columns a, b (2 values per row; not read: c, e)");
        assertThat(run(0, "inspect", dir.resolve("lists.feather").toString())).contains("read by default: list column x (8 values per row)");
        InspectJson.check(MainTest.stdout(0, "inspect", dir.resolve("rows.arrows").toString(), "--json"),
                "j['format'] == 'arrow' and j['rows'] == 700 and j['batches'] == 3 and j['columns'] == ['a', 'b'] "
                        + "and j['not_read'] == ['c', 'e'] and j['list_column'] is None and j['values_per_row'] == 2");
        InspectJson.check(MainTest.stdout(0, "inspect", dir.resolve("lists.feather").toString(), "--json"),
                "j['list_column'] == 'x' and j['values_per_row'] == 8");
    }

    @Test
    void aMissingColumnIsOneLineNamingTheFileAndTheColumns() {
        String out = run(3, "encode", dir.resolve("rows.arrow").toString(), "--columns", "a,z", "--encoding", "angle", "--qubits", "2",
                "--out", dir.resolve("never.npy").toString());
        assertThat(out).contains("rows.arrow: no column 'z' (the columns: a, b, c, e)");
        assertThat(dir.resolve("never.npy")).doesNotExist();
    }
}
