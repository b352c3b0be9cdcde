package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Python;

/// `inspect --json` output parsed by Python's `json` (an independent parser) and checked.
final class InspectJson {
    private InspectJson() {
    }

    /// Parses `stdout` as one JSON object `j` and asserts the Python expression `condition`.
    static void check(String stdout, String condition) {
        assertThat(stdout.strip()).startsWith("{").endsWith("}").doesNotContain("\n");
        assumeTrue(Python.required() || Python.has("json"), "python3 is not installed");
        try {
            Python.Result r = Python.run("import sys, json\nj = json.loads(sys.argv[1])\nassert " + condition + ", j\nprint('OK')\n",
                    stdout.strip());
            assertThat(r.output()).as(stdout).contains("OK");
        } catch (java.io.IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
