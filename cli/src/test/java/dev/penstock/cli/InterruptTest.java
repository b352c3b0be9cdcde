package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.formats.npy.NpyFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/// `penstock encode` run as a child process and killed mid-write: the previous output
/// survives SIGKILL and SIGTERM, SIGTERM cleans up and exits 143 with one line, and nothing at
/// OUT ever loads as complete.
class InterruptTest {
    @TempDir
    Path dir;

    /// A child JVM running `penstock encode` on `in` into `out`, stdout and stderr to `log`.
    private Process encode(Path in, Path out, Path log) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        // a build run in the background (`./penstock test &`, nohup) hands its children SIGINT ignored,
        // and a JVM started so keeps ignoring it: the child gets the default disposition back first
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/env", "--default-signal=INT,TERM", java, "--enable-native-access=ALL-UNNAMED", "--add-modules",
                "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"), Main.class.getName(), "encode", in.toString(),
                "--encoding", "iqp", "--qubits", "12", "--out", out.toString(), "--rows-per-chunk", "64"));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /// Waits until the child's hidden temporary beside `out` holds at least `bytes`.
    private static Path awaitTemporary(Path out, long bytes, Process p) throws Exception {
        String prefix = "." + out.getFileName() + ".penstock-";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && p.isAlive()) {
            try (Stream<Path> s = Files.list(out.getParent())) {
                for (Path t : s.filter(f -> f.getFileName().toString().startsWith(prefix)).toList()) {
                    if (Files.isRegularFile(t) && Files.size(t) >= bytes) {
                        return t;
                    }
                }
            } catch (IOException raced) {
                // the temporary was renamed while listed: keep looking
            }
            Thread.sleep(2);
        }
        throw new AssertionError("no temporary of " + bytes + " bytes beside " + out + " (child alive: " + p.isAlive() + ")");
    }

    /// A child encode started over a previous output, once its temporary holds 4 MiB.
    private record Running(Path out, byte[] before, Process process, Path temp, Path log) {
    }

    private Running startOverAPreviousOutput() throws Exception {
        Path in = NothingLostTest.rows(dir.resolve("rows.npy"), 20_000, 78);
        Path out = previousOutput(NothingLostTest.rows(dir.resolve("small.npy"), 3, 2), dir.resolve("states.npy"));
        byte[] before = Files.readAllBytes(out);
        Path log = dir.resolve("log.txt");
        Process p = encode(in, out, log);
        return new Running(out, before, p, awaitTemporary(out, 4 << 20, p), log);
    }

    private Path previousOutput(Path in, Path out) {
        MainTest.run(0, "encode", in.toString(), "--encoding", "angle", "--qubits", "2", "--out", out.toString());
        return out;
    }

    @Test
    @Timeout(120)
    void sigkillMidWriteLeavesThePreviousOutputAndNothingThatLoadsAsComplete() throws Exception {
        Running r = startOverAPreviousOutput();
        Process p = r.process();
        Path out = r.out();
        Path temp = r.temp();
        p.destroyForcibly(); // SIGKILL: no hook runs
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(137);
        assertThat(Files.readAllBytes(out)).isEqualTo(r.before());
        try (NpyFile left = NpyFile.open(temp)) {
            assertThat(left.shape()[0]).as("a killed temporary never claims rows it may not hold").isZero();
        }
        // the next run to the same destination removes the dead process's temporary
        previousOutput(dir.resolve("small.npy"), out);
        assertThat(temp).doesNotExist();
    }

    @Test
    @Timeout(120)
    void sigtermMidWriteDiscardsTheTemporarySaysSoAndExits143() throws Exception {
        Running r = startOverAPreviousOutput();
        Process p = r.process();
        p.destroy(); // SIGTERM
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(ExitCodes.SIGTERM);
        assertThat(Files.readAllBytes(r.out())).isEqualTo(r.before());
        assertThat(r.temp()).doesNotExist();
        assertThat(NothingLostTest.temporaries(dir)).isEmpty();
        List<String> lines = Files.readAllLines(r.log()).stream().filter(l -> l.startsWith("penstock")).toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.getFirst()).contains("interrupted").contains("states.npy");
    }

    @Test
    @Timeout(120)
    void sigintMidWriteDiscardsTheTemporaryAndExits130() throws Exception {
        Running r = startOverAPreviousOutput();
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(r.process().pid())).start(); // Ctrl-C
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(r.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(r.process().exitValue()).isEqualTo(ExitCodes.SIGINT);
        assertThat(Files.readAllBytes(r.out())).isEqualTo(r.before());
        assertThat(NothingLostTest.temporaries(dir)).isEmpty();
        assertThat(Files.readString(r.log())).contains("penstock: interrupted");
    }
}
