package dev.penstock.cli;

import java.io.PrintStream;
import java.util.Map;

/// Prints benchmark figures as the `name: value` lines every benchmark ends with.
final class Figures {
    private Figures() {
    }

    static void print(Map<String, String> figures, PrintStream out) {
        figures.forEach((k, v) -> out.println(k + ": " + v));
    }
}
