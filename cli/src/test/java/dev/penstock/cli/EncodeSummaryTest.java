package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Python;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Where an encode's time went, as its users ask for it: the bottleneck stage named, staging
/// starvation (chunks that waited for a free buffer, and how long), the copy/compute overlap —
/// in the text summary and, with `--json`, as one JSON object on stdout (parsed by Python's
/// `json`) whose figures agree with the text.
class EncodeSummaryTest {
    @TempDir
    Path dir;

    @Test
    void theSummaryNamesTheBottleneckStarvationAndOverlapAndJsonCarriesTheSameFigures() throws Exception {
        String in = dir.resolve("rows.npy").toString();
        String text = MainTest.run(0, "encode", in, "--example", "3000", "--encoding", "amplitude", "--qubits", "6", "--rows-per-chunk", "100",
                "--out", dir.resolve("a.npy").toString());
        Matcher m = Pattern.compile("bottleneck: (reading|copies|encoding|writing) \\(([0-9.]+) ms busy of ([0-9.]+) ms wall, \\d+%\\); "
                + "staging: (\\d+) of (\\d+) chunks waited for a free buffer \\(([0-9.]+) ms\\); copy/compute overlap: (\\d+)% of the copy time")
                .matcher(text);
        assertThat(m.find()).as(text).isTrue();
        assertThat(Long.parseLong(m.group(5))).as("chunks").isEqualTo(30);
        assertThat(Long.parseLong(m.group(4))).as("chunks that waited").isBetween(0L, 30L);
        assertThat(Integer.parseInt(m.group(7))).as("overlap %").isBetween(0, 100);
        assertThat(Double.parseDouble(m.group(2))).as("the bottleneck's busy time").isLessThanOrEqualTo(Double.parseDouble(m.group(3)) * 1.01 + 1);

        String json = MainTest.stdout(0, "encode", in, "--encoding", "amplitude", "--qubits", "6", "--rows-per-chunk", "100", "--json",
                "--out", dir.resolve("b.npy").toString());
        assertThat(json.strip()).startsWith("{").endsWith("}").doesNotContain("\n");
        assumeTrue(Python.required() || Python.has("json"), "python3 is not installed");
        Python.Result r = Python.run("""
                import json, sys
                d = json.loads(sys.argv[1])
                assert d["rows"] == 3000 and d["rows_written"] == 3000 and d["rows_skipped"] == 0, d
                assert d["bottleneck"] in ("reading", "copies", "encoding", "writing"), d
                assert d["chunks"] == 30 and 0 <= d["staging_waits"] <= 30, d
                assert 0 <= d["overlap_percent"] <= 100, d
                # wall_s is printed to the ms: on a 40 ms run that alone moves 3000 / wall_s by ~1%
                assert abs(d["rows_per_s"] - 3000 / d["wall_s"]) <= d["rows_per_s"] * (0.0005 / d["wall_s"] + 0.001) + 1, d
                assert d["out"].endswith("b.npy") and d["rows_file"].endswith("b.npy.rows.npy"), d
                print("ok")
                """, json.strip());
        assertThat(r.exitCode()).as(r.output()).isZero();
    }
}
