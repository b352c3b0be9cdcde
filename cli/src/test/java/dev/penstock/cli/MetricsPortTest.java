package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `simulate --metrics-port`: while the run goes, `http://127.0.0.1:PORT/metrics` answers with
/// Prometheus text holding the stages' step counters (growing) and the JVM's meters; after the
/// run the port is closed.
class MetricsPortTest {
    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aPortInUseIsOneLineNamingTheOptionAndNothingRuns() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(taken.getLocalPort());
            String sim = MainTest.run(2, "simulate", "../examples/argon-clusters.xyz", "--pipeline", "fire(fmax=0.005)", "--potential",
                    "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)", "--max-atoms", "600", "--metrics-port", port,
                    "--out", dir.resolve("b.xyz").toString());
            assertThat(sim.strip()).contains("option '--metrics-port': cannot listen on 127.0.0.1:" + port).doesNotContain("\tat ");
            String enc = MainTest.runAnyCode("encode", dir.resolve("rows.npy").toString(), "--example", "100", "--encoding", "angle", "--qubits",
                    "2", "--metrics-port", port, "--out", dir.resolve("s.npy").toString());
            assertThat(enc).contains("option '--metrics-port': cannot listen on 127.0.0.1:" + port).doesNotContain("\tat ");
            assertThat(dir.resolve("b.xyz")).doesNotExist();
            assertThat(dir.resolve("s.npy")).doesNotExist();
        }
    }

    @Test
    void aRunningSimulateServesItsMetersOnLoopbackAndStopsWithTheRun() throws Exception {
        int port = freePort();
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> Main.execute("simulate", "../examples/argon-clusters.xyz",
                "--pipeline", "fire(fmax=0.005) + langevin(T=40, dt=5, steps=3000) | nve(dt=5, steps=1500)",
                "--potential", "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)", "--max-atoms", "600", "--metrics-port", Integer.toString(port),
                "--out", dir.resolve("a.xyz").toString()));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(5)).build();
        Pattern steps = Pattern.compile("penstock_stage_steps_total\\{run=\"simulate\",stage=\"fire\\+langevin\"\\} ([0-9.E]+)");
        double first = -1;
        double later = -1;
        String body = "";
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!run.isDone() && System.nanoTime() < deadline && later <= first) {
            try {
                body = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
                Matcher m = steps.matcher(body);
                if (m.find()) {
                    double v = Double.parseDouble(m.group(1));
                    if (first < 0 && v > 0) {
                        first = v;
                    } else if (first > 0) {
                        later = v;
                    }
                }
            } catch (IOException notYet) {
                // the server starts once the pipeline is built
            }
            Thread.sleep(50);
        }
        assertThat(first).as("a scrape during the run saw steps: %s", body).isPositive();
        assertThat(later).as("and a later scrape more").isGreaterThan(first);
        assertThat(body).contains("jvm_memory_used_bytes").contains("penstock_stage_held{run=\"simulate\",stage=\"fire+langevin\"}");
        assertThat(run.get()).isZero();
        boolean refused;
        try {
            http.send(get, HttpResponse.BodyHandlers.ofString());
            refused = false;
        } catch (IOException e) {
            refused = true;
        }
        assertThat(refused).as("the port is closed after the run").isTrue();
    }

    /// `bench loader --metrics-port`: while the benchmark runs, the loader's epoch gauges answer.
    @Test
    void aRunningLoaderBenchServesTheLoadersGauges() throws Exception {
        int port = freePort();
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> Main.execute("bench", "loader", "--workers", "1,2",
                "--threads", "platform", "--samples", "600", "--repeat", "2", "--metrics-port", Integer.toString(port)));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(5)).build();
        Pattern batches = Pattern.compile("penstock_loader_batches\\{run=\"bench-loader\"\\} ([0-9.E]+)");
        double seen = 0;
        String body = "";
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!run.isDone() && System.nanoTime() < deadline && seen <= 0) {
            try {
                body = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
                Matcher m = batches.matcher(body);
                if (m.find()) {
                    seen = Double.parseDouble(m.group(1));
                }
            } catch (IOException notYet) {
                // the server starts with the benchmark
            }
            Thread.sleep(20);
        }
        assertThat(seen).as("a scrape during the run saw batches: %s", body).isPositive();
        assertThat(body).contains("penstock_loader_wait_seconds{run=\"bench-loader\"}").contains("penstock_loader_wait_fraction");
        assertThat(run.get()).isZero();
    }

    /// `encode --metrics-port`: while the encode runs, its rows and the staging pools' use answer.
    @Test
    void aRunningEncodeServesItsRowsAndStagingUse() throws Exception {
        int port = freePort();
        Path rows = dir.resolve("rows.npy");
        MainTest.run(0, "encode", rows.toString(), "--example", "150000", "--encoding", "amplitude", "--qubits", "8", "--out",
                dir.resolve("warm.npy").toString(), "-q");
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> Main.execute("encode", rows.toString(), "--encoding",
                "amplitude", "--qubits", "8", "--rows-per-chunk", "256", "--out", dir.resolve("s.npy").toString(), "--metrics-port",
                Integer.toString(port), "-q"));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(5)).build();
        Pattern written = Pattern.compile("penstock_encode_rows_total\\{run=\"encode\"\\} ([0-9.E]+)");
        Pattern buffers = Pattern.compile("penstock_staging_buffers\\{run=\"encode\"\\} ([0-9.E]+)");
        double rowsSeen = 0;
        double buffersSeen = 0;
        String body = "";
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!run.isDone() && System.nanoTime() < deadline && (rowsSeen <= 0 || buffersSeen <= 0)) {
            try {
                body = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
                Matcher m = written.matcher(body);
                Matcher b = buffers.matcher(body);
                if (m.find() && b.find()) {
                    rowsSeen = Double.parseDouble(m.group(1));
                    buffersSeen = Double.parseDouble(b.group(1));
                }
            } catch (IOException notYet) {
                // the server starts once the input is open
            }
            Thread.sleep(10);
        }
        assertThat(rowsSeen).as("a scrape during the run saw rows written: %s", body).isPositive();
        assertThat(buffersSeen).as("and the live staging buffers").isPositive();
        assertThat(body).contains("penstock_staging_leased{run=\"encode\"}").contains("penstock_staging_wait_seconds{run=\"encode\"}");
        assertThat(run.get()).isZero();
    }
}
