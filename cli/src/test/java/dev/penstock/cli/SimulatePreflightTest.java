package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `simulate` checks its arguments, the systems against the batches and the potential, memory
/// and disk before anything is created, and `--dry-run` prints that plan and stops.
class SimulatePreflightTest {
    private static final String LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";

    @TempDir
    Path dir;

    /// The names in `dir`, hidden ones included, sorted.
    static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> all = Files.list(dir)) {
            return all.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private List<String> listing() throws IOException {
        return listing(dir);
    }

    /// Two argon clusters (3 and 2 atoms) in extended XYZ, as `dir/clusters.xyz`.
    static Path clusters(Path dir) throws IOException {
        return Files.writeString(dir.resolve("clusters.xyz"), """
                3
                Properties=species:S:1:pos:R:3
                Ar 0 0 0
                Ar 3.9 0 0
                Ar 1.9 3.3 0
                2
                Properties=species:S:1:pos:R:3
                Ar 0 0 0
                Ar 4.0 0 0
                """);
    }

    private Path clusters() throws IOException {
        return clusters(dir);
    }

    @Test
    void aDryRunPrintsThePlanAndCreatesNothing() throws Exception {
        Path in = clusters();
        String printed = MainTest.run(0, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01) | nve(dt=1, steps=10)", "--potential", LJ,
                "--out", dir.resolve("sub/out.xyz").toString(), "--snapshots", dir.resolve("snaps").toString(), "--dry-run");
        assertThat(printed).contains("plan: 2 systems, 5 atoms (largest 3) through 2 stages").contains("batch columns").contains("free:")
                .contains("dry run:").doesNotContain("finished");
        assertThat(listing()).containsExactly("clusters.xyz");
    }

    @Test
    void aSystemNoBatchCanHoldIsRefusedBeforeAnythingIsCreated() throws Exception {
        Path in = clusters();
        String printed = MainTest.run(ExitCodes.USAGE, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01)", "--potential", LJ,
                "--out", dir.resolve("out.xyz").toString(), "--max-atoms", "2");
        assertThat(printed).contains("larger than a stage").contains("atoms 3");
        assertThat(listing()).containsExactly("clusters.xyz");
    }

    @Test
    void batchesLargerThanTheMachinesMemoryAreRefusedNamingTheOptions() throws Exception {
        Path in = clusters();
        String printed = MainTest.run(ExitCodes.USAGE, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01)", "--potential", LJ,
                "--out", dir.resolve("out.xyz").toString(), "--max-atoms", "4000000000000");
        assertThat(printed).contains("need").contains("of memory").contains("--max-atoms");
        assertThat(listing()).containsExactly("clusters.xyz");
    }

    @Test
    void aDryRunStillRefusesSystemsThePotentialCannotTake() throws Exception {
        Path cu = Path.of("/usr/share/lammps/potentials/Cu_u3.eam");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(cu) || dev.penstock.testing.Ci.required(), "lammps-data is not installed");
        Path in = clusters();
        String printed = MainTest.run(ExitCodes.USAGE, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01)", "--potential",
                "eam(file=" + cu + ")", "--out", dir.resolve("out.xyz").toString(), "--dry-run");
        assertThat(printed).contains("Ar").doesNotContain("dry run:");
        assertThat(listing()).containsExactly("clusters.xyz");
    }
}
