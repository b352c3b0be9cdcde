package dev.penstock.formats.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.io.BadInputException;
import dev.penstock.testing.NodeJs;
import dev.penstock.testing.Ci;
import dev.penstock.testing.Python;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Arrow IPC files written by Arrow JS (`NodeJs`, an implementation independent of this
/// reader): three record batches of float64, float32 (with nulls), int32, uint8 and int64
/// columns beside a string column, in the file and the stream format; a fixed-size list of 8
/// float64 with a null list and a null value. Read in blocks of every size that crosses the
/// batches, from several threads at once, they equal the float64 rows Arrow JS computed from
/// the same values (NaN for a null) byte for byte; bad files and columns are one line naming
/// them.
class ArrowRowsTest {
    private static final String WRITE = """
import { tableToIPC, Table, vectorFromArray, makeTable, Float64, Float32, Int32, Int64, Uint8, Utf8, FixedSizeList, Field } from 'apache-arrow';
import { writeFileSync } from 'fs';
const d = process.argv[2];
function part(start, n) {
  const f64 = [], f32 = [], i32 = [], u8 = [], i64 = [], label = [];
  for (let r = start; r < start + n; r++) {
    f64.push(Math.sin(r) * 1e3);
    f32.push(r % 7 === 3 ? null : Math.fround(Math.cos(r)));
    i32.push(r - 500);
    u8.push(r % 256);
    i64.push(BigInt(r) * 1000003n - 77n);
    label.push('row' + r);
  }
  return makeTable({ f64: vectorFromArray(f64, new Float64()), label: vectorFromArray(label, new Utf8()), f32: vectorFromArray(f32, new Float32()),
    i32: vectorFromArray(i32, new Int32()), u8: vectorFromArray(u8, new Uint8()), i64: vectorFromArray(i64, new Int64()) });
}
const t = new Table([...part(0, 300).batches, ...part(300, 450).batches, ...part(750, 250).batches]);
writeFileSync(d + '/flat.arrow', tableToIPC(t, 'file'));
writeFileSync(d + '/flat.arrows', tableToIPC(t, 'stream'));
// expected rows of every numeric column, in schema order, float64, NaN for null
const cols = ['f64', 'f32', 'i32', 'u8', 'i64'];
const out = new Float64Array(t.numRows * cols.length);
for (let r = 0; r < t.numRows; r++) {
  cols.forEach((c, k) => { const v = t.getChild(c).get(r); out[r * cols.length + k] = v === null ? NaN : Number(v); });
}
writeFileSync(d + '/flat.bin', Buffer.from(out.buffer));
// a fixed-size list column: 8 float64 per row, a null list and a null value
const lists = [];
for (let r = 0; r < 200; r++) {
  lists.push(r === 5 ? null : Array.from({ length: 8 }, (_, k) => (r === 9 && k === 2) ? null : r + k / 8));
}
const lt = makeTable({ id: vectorFromArray([...Array(200).keys()], new Int32()),
  x: vectorFromArray(lists, new FixedSizeList(8, new Field('item', new Float64(), true))) });
writeFileSync(d + '/list.arrow', tableToIPC(lt, 'file'));
const lo = new Float64Array(200 * 8);
for (let r = 0; r < 200; r++) for (let k = 0; k < 8; k++) { const l = lists[r]; lo[r * 8 + k] = l === null || l[k] === null ? NaN : l[k]; }
writeFileSync(d + '/list.bin', Buffer.from(lo.buffer));
""";

    @TempDir
    static Path dir;

    @BeforeAll
    static void write() throws Exception {
        assumeTrue(Ci.required() || NodeJs.available(), "Arrow JS (npm install apache-arrow@" + NodeJs.ARROW_VERSION + ", see .ci/run) is not installed");
        Python.Result r = NodeJs.run(WRITE, dir.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        byte[] whole = Files.readAllBytes(dir.resolve("flat.arrow"));
        Files.write(dir.resolve("truncated.arrow"), Arrays.copyOf(whole, whole.length * 2 / 3));
        Files.writeString(dir.resolve("text.arrow"), "a,b,c\n1,2,3\n");
    }

    private static byte[] readAll(ArrowRows rows, int block) {
        long rowBytes = 8L * rows.rowLength();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment all = a.allocate(rows.rows() * rowBytes, 8);
            for (long first = 0; first < rows.rows(); first += block) {
                int count = (int) Math.min(block, rows.rows() - first);
                rows.read(first, count, all.asSlice(first * rowBytes, count * rowBytes));
            }
            return all.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void numericColumnsOfThreeBatchesReadAsNodeJsComputedThemInBothFormats() throws Exception {
        byte[] want = Files.readAllBytes(dir.resolve("flat.bin"));
        for (String f : List.of("flat.arrow", "flat.arrows")) {
            try (ArrowRows rows = ArrowRows.open(dir.resolve(f), List.of())) { // the default: the float columns
                assertThat(rows.columnNames()).as(f).containsExactly("f64", "f32");
                assertThat(rows.leftOutColumns()).as(f).containsExactly("i32", "u8", "i64");
            }
            try (ArrowRows rows = ArrowRows.open(dir.resolve(f), List.of("f64", "f32", "i32", "u8", "i64"))) {
                assertThat(rows.rows()).isEqualTo(1000);
                assertThat(rows.batches()).isEqualTo(3);
                for (int block : new int[] {1000, 300, 299, 451, 7, 1}) {
                    assertThat(readAll(rows, block)).as("%s in blocks of %d rows", f, block).isEqualTo(want);
                }
            }
        }
    }

    @Test
    void readsFromSeveralThreadsAtOnceGiveTheSameRows() throws Exception {
        byte[] want = Files.readAllBytes(dir.resolve("flat.bin"));
        try (ArrowRows rows = ArrowRows.open(dir.resolve("flat.arrow"), List.of("f64", "f32", "i32", "u8", "i64")); Arena a = Arena.ofShared();
             ExecutorService pool = Executors.newFixedThreadPool(4)) {
            MemorySegment all = a.allocate(8000L * 5, 8);
            List<Future<?>> parts = new java.util.ArrayList<>();
            for (int p = 0; p < 10; p++) {
                long first = p * 100L;
                parts.add(pool.submit(() -> rows.read(first, 100, all.asSlice(first * 40, 100 * 40))));
            }
            for (Future<?> f : parts) {
                f.get();
            }
            assertThat(all.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(want);
        }
    }

    @Test
    void namedColumnsComeInTheOrderNamed() throws Exception {
        byte[] flat = Files.readAllBytes(dir.resolve("flat.bin"));
        try (ArrowRows rows = ArrowRows.open(dir.resolve("flat.arrow"), List.of("i64", "f64"))) {
            byte[] got = readAll(rows, 333);
            for (int r = 0; r < 1000; r++) {
                assertThat(Arrays.copyOfRange(got, 16 * r, 16 * r + 8)).isEqualTo(Arrays.copyOfRange(flat, 40 * r + 32, 40 * r + 40));
                assertThat(Arrays.copyOfRange(got, 16 * r + 8, 16 * r + 16)).isEqualTo(Arrays.copyOfRange(flat, 40 * r, 40 * r + 8));
            }
        }
    }

    @Test
    void aFixedSizeListColumnGivesEachRowItsListNullsAsNaN() throws Exception {
        try (ArrowRows rows = ArrowRows.open(dir.resolve("list.arrow"), List.of("x"))) {
            assertThat(rows.listMode()).isTrue();
            assertThat(rows.rowLength()).isEqualTo(8);
            assertThat(readAll(rows, 64)).isEqualTo(Files.readAllBytes(dir.resolve("list.bin")));
        }
        try (ArrowRows rows = ArrowRows.open(dir.resolve("list.arrow"), List.of())) {
            assertThat(rows.columnNames()).containsExactly("x"); // the one list column, not the ids beside it
            assertThat(rows.leftOutColumns()).containsExactly("id");
        }
    }

    @Test
    void badFilesAndColumnsAreOneLineNamingThem() {
        Path flat = dir.resolve("flat.arrow");
        assertThatThrownBy(() -> ArrowRows.open(flat, List.of("f64", "nope"))).isInstanceOf(BadInputException.class)
                .hasMessageContaining(flat + ": no column 'nope' (the columns: f64, label, f32, i32, u8, i64)");
        assertThatThrownBy(() -> ArrowRows.open(flat, List.of("label"))).isInstanceOf(BadInputException.class)
                .hasMessageContaining("column 'label' is Utf8, not numbers");
        assertThatThrownBy(() -> ArrowRows.open(dir.resolve("list.arrow"), List.of("id", "x"))).isInstanceOf(BadInputException.class)
                .hasMessageContaining("column 'x' is FixedSizeList, not numbers (a fixed-size list is read alone: --columns x)");
        assertThatThrownBy(() -> ArrowRows.open(dir.resolve("text.arrow"), List.of())).isInstanceOf(BadInputException.class)
                .hasMessageContaining(dir.resolve("text.arrow").toString());
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> ArrowRows.open(dir.resolve("truncated.arrow"), List.of()).close());
        assertThat(t).isInstanceOf(BadInputException.class).hasMessageContaining(dir.resolve("truncated.arrow").toString());
        assertThat(t.getMessage()).doesNotContain("\n");
    }
}
