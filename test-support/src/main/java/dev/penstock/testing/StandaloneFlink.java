package dev.penstock.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/// A real standalone Flink cluster for tests: a JobManager and TaskManagers, each its own JVM on
/// 127.0.0.1, started the way Flink's `bin/jobmanager.sh` and `bin/taskmanager.sh` start them
/// (memory settings from `BashJavaUtils GET_JM_RESOURCE_PARAMS` / `GET_TM_RESOURCE_PARAMS`,
/// `StandaloneSessionClusterEntrypoint`, `TaskManagerRunner`), from the Flink jars of the build's
/// own dependency resolution — no distribution to download. Jobs are submitted as a user does,
/// with Flink's CLI (`CliFrontend run -d`) in a client JVM; state is read from the REST API.
///
/// ```
///   workDir/conf/config.yaml   loopback addresses, free ports, the settings given
///   workDir/log/*.out          each process's output
/// ```
///
/// Threading: one test thread. `close()` kills every process it started (SIGKILL) and waits for
/// them.
public final class StandaloneFlink implements AutoCloseable {
    private static final Pattern JOB_ID = Pattern.compile("JobID ([0-9a-f]{32})");
    private static final List<String> JVM_OPENS = List.of("--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED");

    private final Path work;
    private final Path conf;
    private final String classpath;
    private final String javaBin;
    private final int restPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Process> processes = new ArrayList<>();
    private final Map<String, Process> taskManagers = new LinkedHashMap<>();
    private Process jobManager;
    private List<String> tmJvm;
    private List<String> tmDynamic;
    private int nextTaskManager;

    private StandaloneFlink(Path work, String classpath, Map<String, String> settings) throws IOException {
        this.work = work;
        this.conf = work.resolve("conf");
        this.classpath = classpath;
        this.javaBin = ProcessHandle.current().info().command().orElse("java");
        this.restPort = freePort();
        Files.createDirectories(conf);
        Files.createDirectories(work.resolve("log"));
        Map<String, String> c = new LinkedHashMap<>();
        c.put("jobmanager.rpc.address", "127.0.0.1");
        c.put("jobmanager.rpc.port", Integer.toString(freePort()));
        c.put("jobmanager.bind-host", "127.0.0.1");
        c.put("rest.address", "127.0.0.1");
        c.put("rest.bind-address", "127.0.0.1");
        c.put("rest.port", Integer.toString(restPort));
        c.put("taskmanager.host", "127.0.0.1");
        c.put("taskmanager.bind-host", "127.0.0.1");
        c.put("jobmanager.memory.process.size", "768m");
        c.put("taskmanager.memory.process.size", "1024m");
        c.put("taskmanager.memory.managed.fraction", "0.05");
        c.putAll(settings);
        StringBuilder yaml = new StringBuilder();
        c.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
        Files.writeString(conf.resolve("config.yaml"), yaml);
    }

    /// Starts a JobManager and `taskManagers` TaskManagers under `work` with `settings` added to
    /// the configuration, the Flink classes taken from `classpath`; returns once all have
    /// registered.
    public static StandaloneFlink start(Path work, String classpath, Map<String, String> settings, int taskManagers) throws Exception {
        StandaloneFlink f = new StandaloneFlink(work, classpath, settings);
        try {
            List<String>[] jm = f.resourceParams("GET_JM_RESOURCE_PARAMS");
            List<String> cmd = new ArrayList<>(jm[0]);
            cmd.addAll(List.of("org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint", "--configDir", f.conf.toString(),
                    "--executionMode", "cluster"));
            cmd.addAll(jm[1]);
            f.jobManager = f.launch("jobmanager", cmd);
            List<String>[] tm = f.resourceParams("GET_TM_RESOURCE_PARAMS");
            f.tmJvm = tm[0];
            f.tmDynamic = tm[1];
            for (int k = 0; k < taskManagers; k++) {
                f.startTaskManager();
            }
            f.awaitTaskManagers(taskManagers, Duration.ofSeconds(90));
            return f;
        } catch (Exception | Error e) {
            f.close();
            throw e;
        }
    }

    /// The test JVM's classpath without Penstock's own classes and jars: the Flink runtime the
    /// build resolved (a cluster carries Flink, the job jar carries Penstock).
    public static String flinkClasspath() {
        String all = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> keep = new ArrayList<>();
        for (String e : all.split(java.io.File.pathSeparator)) {
            String p = e.replace('\\', '/');
            if (!p.contains("/dev/penstock/") && !p.contains("/target/classes") && !p.contains("/target/test-classes")
                    && !p.matches(".*/penstock-[a-z-]+-[0-9][^/]*\\.jar")) {
                keep.add(e);
            }
        }
        return String.join(java.io.File.pathSeparator, keep);
    }

    /// Starts one more TaskManager (resource id `tm-<n>`); returns its id.
    public String startTaskManager() throws IOException {
        String id = "tm-" + nextTaskManager++;
        List<String> cmd = new ArrayList<>(tmJvm);
        cmd.addAll(List.of("org.apache.flink.runtime.taskexecutor.TaskManagerRunner", "--configDir", conf.toString()));
        cmd.addAll(tmDynamic);
        cmd.addAll(List.of("-D", "taskmanager.resource-id=" + id));
        taskManagers.put(id, launch(id, cmd));
        return id;
    }

    /// SIGKILLs TaskManager `id` (no shutdown of any kind: a lost machine).
    public void killTaskManager(String id) throws InterruptedException {
        Process p = taskManagers.remove(id);
        if (p == null) {
            throw new IllegalArgumentException("no running TaskManager '" + id + "'");
        }
        p.destroyForcibly(); // SIGKILL on Linux
        p.waitFor();
    }

    /// The ids of the TaskManagers that hold at least one task now (from `/taskmanagers`).
    public List<String> busyTaskManagers() throws Exception {
        String body = get("/taskmanagers");
        List<String> busy = new ArrayList<>();
        for (String tm : body.split("\\{\"id\":\"")) {
            Matcher id = Pattern.compile("^([^\"]+)\"").matcher(tm);
            Matcher slots = Pattern.compile("\"slotsNumber\":(\\d+)").matcher(tm);
            Matcher free = Pattern.compile("\"freeSlots\":(\\d+)").matcher(tm);
            if (id.find() && slots.find() && free.find() && Integer.parseInt(free.group(1)) < Integer.parseInt(slots.group(1))) {
                busy.add(id.group(1));
            }
        }
        return busy;
    }

    /// Runs `mainClass` of `jar` with `args` as `flink run -c` does, attached (the client waits
    /// for the job and runs the rest of `main`), from a client JVM; returns what it printed.
    public String runAttached(Path jar, String mainClass, List<String> args, java.time.Duration timeout) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(javaBin, "--add-opens=java.base/java.util=ALL-UNNAMED",
                "--add-opens=java.base/java.lang=ALL-UNNAMED", "-cp", classpath, "org.apache.flink.client.cli.CliFrontend", "run", "-c",
                mainClass, jar.toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("FLINK_CONF_DIR", conf.toString());
        Process p = pb.start();
        java.util.concurrent.CompletableFuture<String> out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                return e.toString();
            }
        });
        if (!p.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("flink run did not finish in " + timeout + ": " + out.getNow(""));
        }
        String printed = out.get();
        if (p.exitValue() != 0) {
            throw new IllegalStateException("flink run failed (" + p.exitValue() + "): " + printed);
        }
        return printed;
    }

    /// Submits `jar` with `args` as `flink run -d` does, from a client JVM; returns the job id.
    public String submit(Path jar, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(javaBin, "--add-opens=java.base/java.util=ALL-UNNAMED",
                "--add-opens=java.base/java.lang=ALL-UNNAMED", "-cp", classpath, "org.apache.flink.client.cli.CliFrontend", "run", "-d",
                jar.toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("FLINK_CONF_DIR", conf.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("flink run failed (" + p.exitValue() + "): " + out);
        }
        Matcher m = JOB_ID.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("flink run printed no job id: " + out);
        }
        return m.group(1);
    }

    /// The job's state (RUNNING, RESTARTING, FINISHED, …).
    public String state(String job) throws Exception {
        Matcher m = Pattern.compile("\"state\":\"([A-Z_]+)\"").matcher(get("/jobs/" + job));
        return m.find() ? m.group(1) : "UNKNOWN";
    }

    /// Whether the job runs with every vertex deployed: RUNNING, and no vertex still being
    /// scheduled, deployed, initialised or cancelled (a finished source counts as done).
    public boolean running(String job) throws Exception {
        String body = get("/jobs/" + job);
        Matcher state = Pattern.compile("\"state\":\"([A-Z_]+)\"").matcher(body);
        Matcher counts = Pattern.compile("\"status-counts\":\\{([^}]*)\\}").matcher(body);
        if (!state.find() || !state.group(1).equals("RUNNING") || !counts.find()) {
            return false;
        }
        for (String kv : counts.group(1).split(",")) {
            String[] p = kv.replace("\"", "").split(":");
            if (p.length == 2 && !List.of("RUNNING", "FINISHED").contains(p[0].trim()) && !p[1].trim().equals("0")) {
                return false;
            }
        }
        return true;
    }

    /// Checkpoints of the job completed so far.
    public long completedCheckpoints(String job) throws Exception {
        Matcher m = Pattern.compile("\"completed\":(\\d+)").matcher(get("/jobs/" + job + "/checkpoints"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /// Times the job was restored from a checkpoint.
    public long restoredCheckpoints(String job) throws Exception {
        Matcher m = Pattern.compile("\"restored\":(\\d+)").matcher(get("/jobs/" + job + "/checkpoints"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /// Waits until the job reaches a terminal state (or the timeout); returns the state.
    public String awaitTerminal(String job, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String s = state(job);
        while (!List.of("FINISHED", "FAILED", "CANCELED").contains(s) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            s = state(job);
        }
        return s;
    }

    /// The cluster's configuration folder (for a client's `FLINK_CONF_DIR`).
    public Path configDir() {
        return conf;
    }

    private void awaitTaskManagers(int n, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                Matcher m = Pattern.compile("\"taskmanagers\":(\\d+)").matcher(get("/overview"));
                if (m.find() && Integer.parseInt(m.group(1)) >= n) {
                    return;
                }
            } catch (IOException notYet) {
                // the REST endpoint is not up yet
            }
            if (!jobManager.isAlive()) {
                throw new IllegalStateException("the JobManager exited (" + jobManager.exitValue() + "); see " + work.resolve("log"));
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(n + " TaskManagers did not register within " + timeout + "; see " + work.resolve("log"));
    }

    @SuppressWarnings("unchecked")
    private List<String>[] resourceParams(String which) throws Exception {
        Process p = new ProcessBuilder(javaBin, "-cp", classpath, "org.apache.flink.runtime.util.bash.BashJavaUtils", which, "--configDir",
                conf.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        List<String> results = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.startsWith("BASH_JAVA_UTILS_EXEC_RESULT:")) {
                results.add(line.substring("BASH_JAVA_UTILS_EXEC_RESULT:".length()).trim());
            }
        }
        if (results.size() < 2) {
            throw new IllegalStateException("BashJavaUtils " + which + " printed no parameters: " + out);
        }
        List<String> jvm = new ArrayList<>(List.of(javaBin));
        jvm.addAll(List.of(results.get(results.size() - 2).split("\\s+")));
        jvm.addAll(JVM_OPENS);
        jvm.addAll(List.of("-cp", classpath));
        List<String> dynamic = new ArrayList<>(List.of(results.getLast().split("\\s+")));
        return new List[] {jvm, dynamic};
    }

    private Process launch(String name, List<String> cmd) throws IOException {
        Path log = work.resolve("log").resolve(name + ".out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        processes.add(p);
        return p;
    }

    private String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
