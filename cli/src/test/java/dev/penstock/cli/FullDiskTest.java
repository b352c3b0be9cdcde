package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Outputs on a full disk: a small tmpfs (skipped, with the reason, where this machine cannot
/// mount one). The run says so in one line, the previous output survives, nothing is left.
class FullDiskTest {
    @TempDir
    Path base;
    Path disk;
    boolean mounted;

    private static int sh(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    @BeforeEach
    void mountASmallTmpfs() throws Exception {
        disk = Files.createDirectories(base.resolve("disk"));
        mounted = sh("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", disk.toString()) == 0;
        assumeTrue(mounted, "cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): full-disk tests skipped");
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            sh("umount", disk.toString());
        }
    }

    @Test
    void anEncodeThatCannotFitIsRefusedBeforeWritingNamingTheFreeSpace() throws Exception {
        Path in = NothingLostTest.rows(base.resolve("rows.npy"), 2000, 16);
        Path out = Files.writeString(disk.resolve("states.npy"), "previous");
        String printed = MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "4",
                "--out", out.toString());
        assertThat(printed).contains("option '--out'").contains("needs").contains("free");
        assertThat(out).hasContent("previous");
        assertThat(NothingLostTest.temporaries(disk)).isEmpty();
    }

    @Test
    void aZarrStoreThatMayNotFitIsAnnouncedThenFitsOrFailsLeavingThePreviousOne() throws Exception {
        Path in = NothingLostTest.rows(base.resolve("rows.npy"), 2000, 16);
        Path store = Files.createDirectories(disk.resolve("s.zarr"));
        Files.writeString(store.resolve(".zgroup"), "{\"zarr_format\": 2}");
        String printed = MainTest.runAnyCode("encode", in.toString(), "--encoding", "amplitude", "--qubits", "4", "--out", store.toString());
        assertThat(printed).contains("may not fit once compressed");
        if (!printed.contains("encoded 2000 of")) { // the disk filled: one line, the previous store as it was
            assertThat(NothingLostTest.errorLines(printed)).as(printed).hasSize(1);
            assertThat(store.resolve(".zgroup")).hasContent("{\"zarr_format\": 2}");
        }
        assertThat(NothingLostTest.temporaries(disk)).isEmpty();
    }

    @Test
    void aDiskThatFillsMidWriteEndsInOneLineAndThePreviousOutputSurvives() throws Exception {
        Path out = Files.writeString(disk.resolve("argon.xyz"), "previous results");
        // fill the disk but for 100 kB: past the preflight (at least 72 kB), short of what the 24 finished systems take
        Files.write(disk.resolve("filler"), new byte[256 * 1024 - 100 * 1024]);
        String printed = MainTest.run(ExitCodes.OUTPUT_FAILED, "simulate", "../examples/argon-clusters.xyz", "--pipeline",
                "fire(fmax=0.05, steps=20)", "--potential", "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)", "--out", out.toString());
        assertThat(NothingLostTest.errorLines(printed)).as(printed).hasSize(1);
        assertThat(printed).containsIgnoringCase("no space left");
        assertThat(out).hasContent("previous results");
        assertThat(NothingLostTest.temporaries(disk)).isEmpty();
    }

    @Test
    void aFlinkSimulateOnAFullDiskEndsAtOnceInOneLineNamingOut() throws Exception {
        Path out = Files.writeString(disk.resolve("up.xyz"), "previous results");
        Files.write(disk.resolve("filler"), new byte[256 * 1024 - 100 * 1024]);
        long t0 = System.nanoTime();
        String printed = MainTest.run(ExitCodes.OUTPUT_FAILED, "simulate", "../examples/argon-clusters.xyz", "--pipeline",
                "fire(fmax=0.05, steps=20)", "--potential", "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)", "--out", out.toString(),
                "--runner", "flink");
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - t0)).as("not the slot wait of a lost TaskManager")
                .isLessThan(java.time.Duration.ofSeconds(90));
        assertThat(NothingLostTest.errorLines(printed)).as(printed).hasSize(1);
        assertThat(printed).contains("cannot write " + out).containsIgnoringCase("no space left").doesNotContain("internal error");
        assertThat(out).hasContent("previous results");
        assertThat(NothingLostTest.temporaries(disk)).isEmpty();
    }

    @Test
    void aFlinkEncodeThatFillsTheDiskEndsInOneLineNamingOut() throws Exception {
        Path in = NothingLostTest.rows(base.resolve("rows.npy"), 2000, 16);
        Path store = disk.resolve("s.zarr");
        String printed = MainTest.run(ExitCodes.OUTPUT_FAILED, "encode", in.toString(), "--encoding", "amplitude", "--qubits", "4",
                "--out", store.toString(), "--runner", "flink", "--parallelism", "2");
        assertThat(NothingLostTest.errorLines(printed)).as(printed).hasSize(1);
        assertThat(printed).contains("cannot write " + store).containsIgnoringCase("no space left");
        assertThat(store).doesNotExist();
        assertThat(NothingLostTest.temporaries(disk)).isEmpty();
    }

    @Test
    void aSimulateWhoseOutputCanNeverFitIsRefusedBeforeAnythingIsCreated() throws Exception {
        StringBuilder xyz = new StringBuilder();
        for (int k = 0; k < 4000; k++) {
            xyz.append("2\nProperties=species:S:1:pos:R:3\nAr 0 0 0\nAr 3.9 0 0\n");
        }
        Path in = Files.writeString(base.resolve("pairs.xyz"), xyz);
        Path out = Files.writeString(disk.resolve("out.xyz"), "previous results");
        String printed = MainTest.run(ExitCodes.USAGE, "simulate", in.toString(), "--pipeline", "fire(fmax=0.05, steps=20)", "--potential",
                "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)", "--out", out.toString());
        assertThat(printed).contains("option '--out' " + out + " (at least, 8,000 atoms) needs").contains("free there");
        assertThat(out).hasContent("previous results");
        try (var left = Files.list(disk)) {
            assertThat(left.map(p -> p.getFileName().toString()).toList()).containsExactly("out.xyz");
        }
    }
}
