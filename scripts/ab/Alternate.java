import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/// Runs `InflightRun` of two builds in one JVM, alternating — each build in its own class loader
/// (its atoms and core classes first, the CLI's libraries after) — so that both see the same JIT,
/// heap and minute of this machine: on a VM whose speed wanders by 30% from one run to the next,
/// the fair A/B. Args: BUILD_A BUILD_B (class-path lists, ':'-separated) LIB_DIR ROUNDS THREADS,...
public final class Alternate {
    private Alternate() {
    }

    public static void main(String[] args) throws Exception {
        String[] builds = {args[0], args[1]};
        List<URL> libs = new ArrayList<>();
        try (var files = Files.list(Path.of(args[2]))) {
            for (Path p : files.sorted().toList()) {
                String name = p.getFileName().toString();
                if (!name.startsWith("penstock-atoms") && !name.startsWith("penstock-core")) {
                    libs.add(p.toUri().toURL());
                }
            }
        }
        int rounds = Integer.parseInt(args[3]);
        String[] threads = args[4].split(",");
        Method[] run = new Method[2];
        for (int b = 0; b < 2; b++) {
            List<URL> urls = new ArrayList<>();
            urls.add(Path.of(System.getProperty("ab.probe")).toUri().toURL());
            for (String dir : builds[b].split(":")) {
                urls.add(Path.of(dir).toUri().toURL());
            }
            urls.addAll(libs);
            ClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
            run[b] = Class.forName("InflightRun", true, loader).getMethod("run", int.class, double[].class);
        }
        Map<String, List<Double>> times = new TreeMap<>();
        for (int r = 0; r < rounds; r++) {
            for (String t : threads) {
                double[] checks = new double[2];
                for (int b = 0; b < 2; b++) {
                    double[] e = new double[1];
                    double s = (double) run[b].invoke(null, Integer.parseInt(t), e);
                    checks[b] = e[0];
                    if (r >= 2) { // two warm-up rounds
                        times.computeIfAbsent((b == 0 ? "A" : "B") + " " + t + " threads", k -> new ArrayList<>()).add(s);
                    }
                }
                if (checks[0] != checks[1]) {
                    System.out.println("energies differ between the builds: " + checks[0] + " vs " + checks[1]);
                }
            }
        }
        for (var e : times.entrySet()) {
            List<Double> x = new ArrayList<>(e.getValue());
            Collections.sort(x);
            System.out.printf("%s: median %.3f s, min %.3f s over %d runs%n", e.getKey(), x.get(x.size() / 2), x.getFirst(), x.size());
        }
    }
}
