package dev.penstock.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/// Runs Debian's `/usr/bin/python3` (which sees Debian's NumPy, zarr and ASE) for tests that
/// check files against the real tools. `.ci/run` installs the packages; elsewhere such tests are
/// skipped when the package is missing, and fail under CI.
public final class Python {
    /// Debian's interpreter.
    public static final String PYTHON = "/usr/bin/python3";

    private Python() {
    }

    /// Whether `python3 -c "import MODULE"` works.
    public static boolean has(String module) {
        try {
            return run("import " + module).exitCode() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /// Whether tests must not skip (running under CI).
    public static boolean required() {
        return Ci.required();
    }

    /// The result of a script run.
    public record Result(int exitCode, String output) {
    }

    /// Runs `script` (Python source) with `args`; returns exit code and combined output.
    public static Result run(String script, String... args) throws IOException, InterruptedException {
        Path f = Files.createTempFile("penstock-test", ".py");
        try {
            Files.writeString(f, script);
            List<String> cmd = new java.util.ArrayList<>(List.of(PYTHON, f.toString()));
            cmd.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().remove("PYTHONPATH");
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("python did not finish in 120 s: " + script);
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
