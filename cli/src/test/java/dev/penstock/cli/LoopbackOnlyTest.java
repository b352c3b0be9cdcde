package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Listeners;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/// Nothing Penstock opens listens beyond loopback: every command is run while this JVM's
/// listening sockets are sampled (`/proc/self/net/tcp`, `tcp6`).
class LoopbackOnlyTest {
    private static final String EXAMPLE = "../examples/argon-clusters.xyz";
    private static final String PIPELINE = "fire(fmax=0.05, steps=200) | nve(dt=5, steps=100)";
    private static final String LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";

    @TempDir
    Path dir;

    @BeforeEach
    void linux() {
        assumeTrue(Listeners.available(), "no /proc/self/net/tcp on this machine");
    }

    /// Runs `args` on another thread; returns every listener this JVM had while it ran that it
    /// did not have before.
    private static Set<String> listenersDuring(int expectedCode, Set<String> beyondLoopback, String... args) throws Exception {
        Set<String> before = new HashSet<>();
        Listeners.ofThisProcess().forEach(l -> before.add(l.toString()));
        CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> MainTest.run(expectedCode, args));
        Set<String> seen = new HashSet<>();
        while (!run.isDone()) {
            for (Listeners.Listener l : Listeners.ofThisProcess()) {
                if (!before.contains(l.toString())) {
                    seen.add(l.toString());
                    if (!l.loopback()) {
                        beyondLoopback.add(l.toString());
                    }
                }
            }
            Thread.sleep(10);
        }
        run.get(1, TimeUnit.SECONDS);
        return seen;
    }

    @Test
    void theSamplerSeesAWildcardListenerAndKnowsLoopbackFromIt() throws Exception {
        try (ServerSocket any = new ServerSocket(0); ServerSocket local = new ServerSocket()) {
            local.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            List<Listeners.Listener> all = Listeners.ofThisProcess();
            assertThat(all).anyMatch(l -> l.port() == any.getLocalPort() && !l.loopback());
            assertThat(all).anyMatch(l -> l.port() == local.getLocalPort() && l.loopback());
            assertThat(Listeners.beyondLoopback()).noneMatch(l -> l.port() == local.getLocalPort());
        }
    }

    @Test
    @Timeout(180)
    void aFlinkSimulateListensOnLoopbackOnly() throws Exception {
        Set<String> beyond = new HashSet<>();
        Set<String> partsModes = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Thread watch = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try (var all = java.nio.file.Files.list(dir)) { // the parts live in .f.xyz.parts.penstock-<pid>-<n>.tmp
                    for (Path p : all.filter(p -> p.getFileName().toString().startsWith(".f.xyz.parts.penstock-")).toList()) {
                        partsModes.add(java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(p)));
                    }
                } catch (java.io.IOException | java.io.UncheckedIOException notYetOrGone) {
                    // the folder exists only while the job runs
                }
                try {
                    Thread.sleep(2);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        });
        Set<String> seen = listenersDuring(0, beyond, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ,
                "--out", dir.resolve("f.xyz").toString(), "--max-atoms", "500", "--runner", "flink", "--parallelism", "2");
        watch.interrupt();
        watch.join();
        assertThat(partsModes).as("the job's part folder, while it ran, is the user's alone").containsExactly("rwx------");
        assertThat(beyond).as("listeners beyond loopback while Flink ran").isEmpty();
        assertThat(seen).as("the embedded cluster's own listeners (REST at least), on loopback").isNotEmpty();
    }

    @Test
    @Timeout(180)
    void aFlinkEncodeListensOnLoopbackOnlyAndKeepsItsShardsPrivate() throws Exception {
        Set<String> beyond = new HashSet<>();
        MainTest.run(0, "encode", dir.resolve("e.npy").toString(), "--example", "20000", "--encoding", "amplitude", "--qubits", "8",
                "--out", dir.resolve("e-local.npy").toString());
        Set<String> shardModes = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Thread watch = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try (var all = java.nio.file.Files.list(dir)) {
                    for (Path p : all.filter(p -> p.getFileName().toString().contains("shards")).toList()) {
                        shardModes.add(java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(p)));
                    }
                } catch (java.io.IOException | java.io.UncheckedIOException notYetOrGone) {
                    // the folder exists only while the job runs
                }
                try {
                    Thread.sleep(2);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        });
        Set<String> seen = listenersDuring(0, beyond, "encode", dir.resolve("e.npy").toString(), "--encoding", "amplitude", "--qubits", "8",
                "--out", dir.resolve("e-flink.npy").toString(), "--runner", "flink", "--parallelism", "2");
        watch.interrupt();
        watch.join();
        assertThat(shardModes).as("the job's shard folder, while it ran, is the user's alone").containsExactly("rwx------");
        assertThat(beyond).as("listeners beyond loopback while Flink ran").isEmpty();
        assertThat(seen).as("the embedded cluster's own listeners (REST at least), on loopback").isNotEmpty();
    }

    @Test
    @Timeout(180)
    void everyOtherCommandOpensNoListenerAtAll() throws Exception {
        Set<String> beyond = new HashSet<>();
        Set<String> encode = listenersDuring(0, beyond, "encode", "--example", "3000", "--encoding", "amplitude", "--qubits", "8",
                "--out", dir.resolve("s.npy").toString(), dir.resolve("rows.npy").toString());
        Set<String> simulate = listenersDuring(0, beyond, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ,
                "--out", dir.resolve("l.xyz").toString(), "--max-atoms", "500");
        Set<String> inspect = listenersDuring(0, beyond, "inspect", dir.resolve("s.npy").toString());
        Set<String> loader = listenersDuring(0, beyond, "bench", "loader", "--workers", "2", "--samples", "64", "--repeat", "1",
                "--step-ms", "1");
        Set<String> transfer = listenersDuring(0, beyond, "bench", "transfer", "--total-mib", "8", "--chunk-mib", "1", "--repeat", "1");
        assertThat(encode).isEmpty();
        assertThat(simulate).isEmpty();
        assertThat(inspect).isEmpty();
        assertThat(loader).isEmpty();
        assertThat(transfer).isEmpty();
        assertThat(beyond).isEmpty();
    }
}
