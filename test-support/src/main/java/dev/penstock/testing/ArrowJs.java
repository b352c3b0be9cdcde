package dev.penstock.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/// Arrow JS (the `apache-arrow` npm package, an implementation of Arrow independent of
/// Penstock's reader) run by the machine's Node.js: the tests' Arrow IPC files come from it.
/// `.ci/run` installs the package into `home()`; run scripts are ES modules placed there so that
/// `import … from 'apache-arrow'` resolves.
public final class ArrowJs {
    /// The package version `.ci/run` installs.
    public static final String VERSION = "21.2.0";

    private ArrowJs() {
    }

    /// Where the package is installed: `$PENSTOCK_ARROW_JS`, else `~/.cache/penstock/arrow-js`.
    public static Path home() {
        String env = System.getenv("PENSTOCK_ARROW_JS");
        return env != null ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "penstock", "arrow-js");
    }

    /// Whether Node.js and the package are there.
    public static boolean available() {
        return node() != null && Files.isDirectory(home().resolve("node_modules").resolve("apache-arrow"));
    }

    private static String node() {
        for (String p : new String[] {"/usr/bin/node", "/usr/local/bin/node"}) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        return null;
    }

    /// Runs `script` (an ES module) with `args`; returns its exit code and combined output.
    public static Python.Result run(String script, String... args) throws IOException, InterruptedException {
        Path f = Files.createTempFile(home(), "penstock-test", ".mjs");
        try {
            Files.writeString(f, script);
            List<String> cmd = new ArrayList<>(List.of(node(), f.toString()));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("node did not finish in 120 s");
            }
            return new Python.Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
