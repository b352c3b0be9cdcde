package dev.penstock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/// Runs a peer script from `benchmarks/peers/` and collects its `name: value` lines.
public final class Peers {
    private static final Pattern FIGURE = Pattern.compile("^([a-zA-Z0-9_.]+): (-?[0-9.eE+-]+)$");
    /// Debian's Python, which sees Debian's PyTorch, NumPy, ASE and zarr.
    public static final String PYTHON = "/usr/bin/python3";

    private Peers() {
    }

    /// Finds `benchmarks/peers/NAME` from the working directory or the `penstock.home` property.
    public static Path script(String name) {
        String home = System.getProperty("penstock.home", ".");
        Path p = Path.of(home, "benchmarks", "peers", name);
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException("peer script " + p.toAbsolutePath() + " not found (run from the repository root)");
        }
        return p;
    }

    /// Runs `python3 script args…`, echoing its other lines to `out`; returns its figures, or
    /// null (having said why) when Python or the peer's packages are missing or it fails.
    public static Map<String, Double> run(Path script, List<String> args, PrintStream out) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(PYTHON))) {
            out.println("peer: " + PYTHON + " not found; install it with: apt-get install -y python3-torch python3-numpy");
            return null;
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(PYTHON);
        cmd.add(script.toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("PYTHONPATH");
        Process proc = pb.start();
        Map<String, Double> figures = new LinkedHashMap<>();
        List<String> tail = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                Matcher m = FIGURE.matcher(line.trim());
                if (m.matches()) {
                    figures.put(m.group(1), Double.parseDouble(m.group(2)));
                } else {
                    out.println("peer: " + line);
                    tail.add(line);
                }
            }
        }
        int rc = proc.waitFor();
        if (rc != 0) {
            boolean missing = tail.stream().anyMatch(l -> l.contains("ModuleNotFoundError"));
            out.println("peer: " + script.getFileName() + " exited with " + rc
                    + (missing ? "; install the peer with: apt-get install -y python3-torch python3-numpy" : ""));
            return null;
        }
        return figures;
    }
}
