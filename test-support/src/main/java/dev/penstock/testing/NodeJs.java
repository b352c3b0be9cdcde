package dev.penstock.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/// npm packages run by the machine's Node.js, as independent implementations of the formats
/// Penstock reads and writes: Arrow JS (`apache-arrow`) writes the tests' Arrow IPC files, zarrita
/// reads the Zarr v3 stores Penstock writes. `.ci/run` installs both into `home()`; run scripts
/// are ES modules placed there so that `import … from 'apache-arrow'` resolves.
public final class NodeJs {
    /// The Arrow JS version `.ci/run` installs.
    public static final String ARROW_VERSION = "21.2.0";
    /// The zarrita version `.ci/run` installs.
    public static final String ZARRITA_VERSION = "0.7.5";

    private NodeJs() {
    }

    /// Where the package is installed: `$PENSTOCK_ARROW_JS`, else `~/.cache/penstock/arrow-js`.
    public static Path home() {
        String env = System.getenv("PENSTOCK_ARROW_JS");
        return env != null ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "penstock", "arrow-js");
    }

    /// Whether Node.js and Arrow JS are there.
    public static boolean available() {
        return available("apache-arrow");
    }

    /// Whether Node.js and npm package `name` are there.
    public static boolean available(String name) {
        return node() != null && Files.isDirectory(home().resolve("node_modules").resolve(name));
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
