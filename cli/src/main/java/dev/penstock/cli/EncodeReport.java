package dev.penstock.cli;

import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.EncodingException;
import dev.penstock.quantum.StatesOutput;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/// What `penstock encode` says when a local run has ended: the summary (rows, skipped rows with
/// their reasons, where the time went, the bottleneck, staging starvation, copy/compute overlap,
/// and with `--json` its figures as one JSON object on stdout) and `OUT.skipped.tsv`.
///
/// @param out         OUT
/// @param rowsFile    where the input row of each state went
/// @param skippedFile `OUT.skipped.tsv`
/// @param encoding    the encoding's name, as given
/// @param qubits      qubits per state
/// @param json        `--json`
record EncodeReport(Path out, Path rowsFile, Path skippedFile, String encoding, int qubits, boolean json) {
    /// Why row `e.row()` was left out: the reader's finding (a ragged list) when it had one.
    static String reason(EncodingException e, Map<Long, String> problems) {
        return problems.getOrDefault(e.row(), e.rule());
    }

    /// `OUT.skipped.tsv`: every row left out, with the reason (none: an earlier run's file removed).
    static void writeSkipped(Path skippedFile, EncodeSummary s, Map<Long, String> problems) throws java.io.IOException {
        StatesOutput.writeSkipped(skippedFile, s.skipped().stream().map(e -> e.row() + "\t" + reason(e, problems).replace('\t', ' ')
                .replace('\n', ' ')).toList());
    }

    /// Prints the summary (and, with `--json`, the figures as one JSON object on stdout).
    void print(PrintStream o, EncodeSummary s, Map<Long, String> problems, long commitNs) {
        o.printf(Locale.ROOT, "encoded %d of %d rows (%s, %d qubits) in %.3f s: %.0f rows/s -> %s%n", s.rowsWritten(), s.rowsRead(),
                encoding, qubits, s.wallNs() / 1e9, s.rowsPerSecond(), out);
        if (!s.skipped().isEmpty()) {
            o.printf("skipped %d bad rows:%n", s.skipped().size());
            s.skipped().stream().limit(20).forEach(e -> o.println("  row " + e.row() + ": " + reason(e, problems)));
            if (s.skipped().size() > 20) {
                o.printf("  … and %d more%n", s.skipped().size() - 20);
            }
            o.println("every skipped row, with its reason: " + skippedFile);
        }
        var t = s.transfer();
        double encodeMs = (t.kernelNs() - s.outputWaitNs()) / 1e6;
        o.printf(Locale.ROOT, "where the time went (stages overlap): waiting for reads %.1f ms, waiting for staging %.1f ms, "
                + "copies %.1f ms, encoding %.1f ms, waiting for the writer %.1f ms, writing %.1f ms%n", s.ioWaitNs() / 1e6,
                t.slotWaitNs() / 1e6, t.copyNs() / 1e6, encodeMs, s.outputWaitNs() / 1e6, s.writeNs() / 1e6);
        // the busiest stage: what the others wait for (reading = the host's time to get rows into staging)
        Map<String, Double> busy = new LinkedHashMap<>();
        busy.put("reading", (s.ioWaitNs() + t.readNs()) / 1e6);
        busy.put("copies", t.copyNs() / 1e6);
        busy.put("encoding", encodeMs);
        busy.put("writing", s.writeNs() / 1e6);
        String bottleneck = busy.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        double wallMs = s.wallNs() / 1e6;
        // the first chunk's encoding against the later ones': in a fresh JVM the first is mostly the
        // JIT compiling the kernels (400-550 ms for the vector amplitude path on this project's VM)
        double firstMs = t.firstKernelNs() / 1e6;
        double laterMs = t.chunks() <= 1 ? 0 : Math.max(0, encodeMs - firstMs) / (t.chunks() - 1);
        String warmUp = t.chunks() > 1 && firstMs > 3 * laterMs && firstMs > 20
                ? String.format(Locale.ROOT, "; the first chunk's encoding took %.1f ms, each later one %.1f ms on average (the JIT "
                        + "compiling the kernels)", firstMs, laterMs) : "";
        o.printf(Locale.ROOT, "bottleneck: %s (%.1f ms busy of %.1f ms wall, %.0f%%); staging: %d of %d chunks waited for a free "
                + "buffer (%.1f ms); copy/compute overlap: %.0f%% of the copy time ran beside encoding%s%n", bottleneck,
                busy.get(bottleneck), wallMs, wallMs == 0 ? 0 : 100 * busy.get(bottleneck) / wallMs, t.slotWaits(), t.chunks(),
                t.slotWaitNs() / 1e6, t.overlapPercent(), warmUp);
        o.printf(Locale.ROOT, "then made durable in %.1f ms (row indices written, every file synced to disk and renamed "
                + "into place)%n", commitNs / 1e6);
        if (json) { // the machine lines: only when asked for
            Map<String, String> figures = new LinkedHashMap<>();
            figures.put("rows", Long.toString(s.rowsRead()));
            figures.put("rows_written", Long.toString(s.rowsWritten()));
            figures.put("rows_skipped", Integer.toString(s.skipped().size()));
            figures.put("rows_per_s", String.format(Locale.ROOT, "%.1f", s.rowsPerSecond()));
            figures.put("wall_s", String.format(Locale.ROOT, "%.3f", s.wallNs() / 1e9));
            figures.put("read_wait_ms", ms(s.ioWaitNs()));
            figures.put("staging_wait_ms", ms(t.slotWaitNs()));
            figures.put("staging_waits", Long.toString(t.slotWaits()));
            figures.put("chunks", Long.toString(t.chunks()));
            figures.put("copy_ms", ms(t.copyNs()));
            figures.put("encode_ms", String.format(Locale.ROOT, "%.1f", encodeMs));
            figures.put("first_chunk_encode_ms", String.format(Locale.ROOT, "%.1f", firstMs));
            figures.put("writer_wait_ms", ms(s.outputWaitNs()));
            figures.put("write_ms", ms(s.writeNs()));
            figures.put("overlap_percent", String.format(Locale.ROOT, "%.1f", t.overlapPercent()));
            figures.put("bottleneck", bottleneck);
            figures.put("durable_ms", ms(commitNs));
            figures.put("out", out.toString());
            figures.put("rows_file", rowsFile.toString());
            System.out.println(JsonFigures.toJson(figures));
        }
        o.println("input row of each state: " + rowsFile);
    }

    private static String ms(long ns) {
        return String.format(Locale.ROOT, "%.1f", ns / 1e6);
    }
}
