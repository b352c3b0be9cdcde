package dev.penstock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.formats.arrow.ArrowRows;
import dev.penstock.testing.NodeJs;
import dev.penstock.testing.Ci;
import dev.penstock.testing.Python;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The benchmark's Arrow writer gives files that Penstock's reader and Arrow JS (an independent
/// implementation) both read back value for value, over several record batches.
class ArrowFilesTest {
    @TempDir
    Path dir;

    private static double value(long r, int c) {
        return r * 1000.0 + c + 0.25;
    }

    @Test
    void aWrittenFileReadsBackInPenstockAndInNodeJs() throws Exception {
        Path f = dir.resolve("t.arrow");
        ArrowFiles.writeFloat64(f, 7, 3, 3, ArrowFilesTest::value);
        try (ArrowRows rows = ArrowRows.open(f, List.of()); Arena a = Arena.ofConfined()) {
            assertThat(rows.rows()).isEqualTo(7);
            assertThat(rows.batches()).isEqualTo(3);
            assertThat(rows.columnNames()).containsExactly("f0", "f1", "f2");
            MemorySegment m = a.allocate(7 * 3 * 8, 8);
            rows.read(0, 7, m);
            for (int r = 0; r < 7; r++) {
                for (int c = 0; c < 3; c++) {
                    assertThat(m.getAtIndex(ValueLayout.JAVA_DOUBLE, 3L * r + c)).isEqualTo(value(r, c));
                }
            }
        }
        if (!Ci.required() && !NodeJs.available()) {
            return; // Arrow JS is not installed here (.ci/run installs it)
        }
        Python.Result js = NodeJs.run("""
                import { tableFromIPC } from 'apache-arrow';
                import { readFileSync } from 'fs';
                const t = tableFromIPC(readFileSync(process.argv[2]));
                const out = [];
                for (let r = 0; r < t.numRows; r++) out.push(['f0', 'f1', 'f2'].map(c => t.getChild(c).get(r)).join(','));
                console.log(t.batches.length + ' ' + t.numRows + ' ' + out.join(';'));
                """, f.toString());
        assertThat(js.exitCode()).as(js.output()).isZero();
        StringBuilder want = new StringBuilder("3 7 ");
        for (int r = 0; r < 7; r++) {
            want.append(r == 0 ? "" : ";");
            for (int c = 0; c < 3; c++) {
                double v = value(r, c);
                want.append(c == 0 ? "" : ",").append(v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v));
            }
        }
        assertThat(js.output().strip()).isEqualTo(want.toString());
    }
}
