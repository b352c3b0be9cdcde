package dev.penstock.cli;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/// `--metrics-port`: a running `simulate` or `encode` serves its meters (`PenstockMetrics`, and
/// the JVM's memory, GC, threads and CPU) as Prometheus text at `http://127.0.0.1:PORT/metrics`,
/// on the loopback interface only, until the run ends.
final class MetricsServer implements AutoCloseable {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final HttpServer server;

    private MetricsServer(int port) throws IOException {
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        } catch (IOException e) { // a port in use: the user's option, one line
            registry.close();
            throw new IllegalArgumentException("option '--metrics-port': cannot listen on 127.0.0.1:" + port + " (" + e.getMessage() + ")");
        }
        server.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    /// Serves on `port` of the loopback interface (0: any free port, see `url`).
    static MetricsServer start(int port) throws IOException {
        return new MetricsServer(port);
    }

    /// The registry the run's meters go into.
    PrometheusMeterRegistry registry() {
        return registry;
    }

    /// Where the meters are served.
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/metrics";
    }

    @Override
    public void close() {
        server.stop(0);
        gc.close();
        registry.close();
    }
}
