package dev.penstock.cli;

import java.io.PrintStream;
import java.util.Map;
import picocli.CommandLine.Option;

/// The `--json` option every `bench` command takes: without it, progress and the `name: value`
/// figure lines go to stdout as they always did; with it, progress goes to stderr and stdout gets
/// one JSON object of the same figures (numbers as JSON numbers, the rest as strings), for scripts.
public final class JsonFigures {
    @Option(names = "--json", description = "print the figures as one JSON object on stdout (progress goes to stderr)")
    boolean json;

    /// Where a benchmark prints its progress.
    PrintStream progress() {
        return json ? System.err : System.out;
    }

    /// Prints the figures, as lines or as one JSON object.
    void print(Map<String, String> figures) {
        if (!json) {
            Figures.print(figures, System.out);
            return;
        }
        System.out.println(toJson(figures));
    }

    /// `figures` as one JSON object, keys in order.
    static String toJson(Map<String, String> figures) {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, String> e : figures.entrySet()) {
            b.append(b.length() == 1 ? "" : ", ").append(quote(e.getKey())).append(": ");
            String v = e.getValue();
            b.append(isNumber(v) ? v : quote(v));
        }
        return b.append('}').toString();
    }

    /// `x` as a JSON number (null when not finite: JSON has no NaN).
    static String number(double x) {
        return Double.isFinite(x) ? Double.toString(x) : "null";
    }

    private static boolean isNumber(String v) {
        // JSON's number grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
        return v != null && v.matches("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?");
    }

    /// `s` as a JSON string (ASCII, escaped; "null" for null).
    static String quote(String s) {
        return dev.penstock.io.Json.quote(s == null ? "null" : s);
    }
}
