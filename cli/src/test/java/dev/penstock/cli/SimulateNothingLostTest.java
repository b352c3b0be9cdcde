package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Python;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `penstock simulate` with inputs as users have them: plain XYZ with free-text comments, an
/// output named like the input, spec values out of range.
class SimulateNothingLostTest {
    private static final String LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";

    @TempDir
    Path dir;

    private Path plainXyz() throws Exception {
        return Files.writeString(dir.resolve("clusters.xyz"), """
                3
                LJ38 start: relaxed minimum
                Ar 0 0 0
                Ar 3.9 0 0
                Ar 1.9 3.3 0
                2
                cluster "two" (no keys at all)
                Ar 0 0 0
                Ar 4.0 0 0
                """);
    }

    @Test
    void plainXyzWithFreeTextCommentsIsSimulatedAndTheCommentsWrittenBack() throws Exception {
        Path in = plainXyz();
        Path out = dir.resolve("out.xyz");
        String printed = MainTest.run(0, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01, steps=500)", "--potential", LJ,
                "--out", out.toString());
        assertThat(printed).contains("2 of 2 systems finished");
        String written = Files.readString(out);
        assertThat(written).contains("comment=\"LJ38 start: relaxed minimum\"").contains("comment=\"cluster \\\"two\\\" (no keys at all)\"");
        assumeTrue(Python.required() || Python.has("ase"), "ASE is not installed");
        Python.Result r = Python.run("""
                import sys
                from ase.io import read
                for a in read(sys.argv[1], ':'):
                    print(len(a), '|' + a.info['comment'] + '|')
                """, out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("3 |LJ38 start: relaxed minimum|").contains("2 |cluster \"two\" (no keys at all)|");
    }

    @Test
    void anOutputThatIsTheInputIsRefusedAndTheInputKept() throws Exception {
        Path in = plainXyz();
        String before = Files.readString(in);
        String printed = MainTest.run(ExitCodes.USAGE, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01)", "--potential", LJ,
                "--out", in.toString());
        assertThat(printed).contains("option '--out'").contains("is the input");
        assertThat(in).hasContent(before);
    }

    @Test
    void specValuesOutOfRangeAreRefusedInTheUsersUnitsBeforeAnyFileIsTouched() throws Exception {
        Path in = plainXyz();
        Path out = Files.writeString(dir.resolve("out.xyz"), "previous results");
        String[][] cases = {
            {"nve(dt=0, steps=10)", "'dt' must be > 0 fs, got 0 fs"},
            {"nve(dt=-5, steps=10)", "'dt' must be > 0 fs, got -5 fs"},
            {"langevin(T=-5, dt=1, steps=10)", "'T' must be ≥ 0 K, got -5 K"},
            {"langevin(T=300, dt=1, steps=10, friction=-1)", "'friction' must be ≥ 0 1/fs, got -1 1/fs"},
            {"fire(fmax=0)", "'fmax' must be > 0 eV/Å"},
            {"nve(dt=NaN, steps=10)", "'dt' must be a finite number"},
        };
        for (String[] c : cases) {
            String printed = MainTest.run(ExitCodes.USAGE, "simulate", in.toString(), "--pipeline", c[0], "--potential", LJ,
                    "--out", out.toString());
            assertThat(printed).as(c[0]).contains(c[1]);
            assertThat(NothingLostTest.errorLines(printed)).as(printed).hasSize(1);
        }
        assertThat(out).hasContent("previous results");
        assertThat(NothingLostTest.temporaries(dir)).isEmpty();
    }

    @Test
    void aTimeStepThatFlingsAtomsApartIsAQuarantineNotASuccess() throws Exception {
        Path in = plainXyz();
        Path out = dir.resolve("out.xyz");
        String printed = MainTest.run(ExitCodes.QUARANTINED, "simulate", in.toString(), "--pipeline",
                "langevin(T=300, dt=100000, steps=20)", "--potential", LJ, "--out", out.toString());
        assertThat(printed).contains("0 of 2 systems finished").contains("is the time step too large?");
        assertThat(Files.readString(dir.resolve("out.xyz.quarantined.xyz"))).contains("comment=\"LJ38 start: relaxed minimum\"")
                .contains("quarantined=");
    }

    @Test
    void batchLimitsBelowOneNameTheirOption() throws Exception {
        Path in = plainXyz();
        assertThat(MainTest.run(ExitCodes.USAGE, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01)", "--potential", LJ,
                "--out", dir.resolve("o.xyz").toString(), "--max-atoms", "0")).contains("option '--max-atoms' must be ≥ 1, got 0");
    }

    @Test
    void aZarrGroupOfSystemsHasAsciiMetadataThatZarrPythonReads() throws Exception {
        Path in = plainXyz();
        Path out = dir.resolve("out.zarr");
        MainTest.run(0, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01, steps=300)", "--potential", LJ,
                "--out", out.toString());
        try (var all = Files.walk(out)) {
            for (Path meta : all.filter(p -> p.getFileName().toString().startsWith(".z") || p.endsWith("zarr.json")).toList()) {
                byte[] b = Files.readAllBytes(meta);
                for (byte x : b) {
                    assertThat(x).as(meta + " is ASCII").isNotNegative();
                }
            }
        }
        assumeTrue(Python.required() || Python.has("zarr"), "zarr-python is not installed");
        Python.Result r = Python.run("""
                import sys, zarr
                g = zarr.open(sys.argv[1], mode='r')
                print(g['positions'].attrs['units'], '|', g['momenta'].attrs['units'], '|', g['energy'].shape, g.attrs['units']['stress'])
                """, out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("Å | amu·Å/t, t = Å·√(amu/eV) (ASE's) | (2, 1) eV/Å³");
    }

    /// Two systems whose per-atom array `tags` disagree in type: the Zarr output keeps the first,
    /// the second is quarantined with the reason (kept whole, its tags too), nothing is left beside.
    @Test
    void aSystemWhoseArraysDisagreeWithTheOthersIsQuarantinedNotLost() throws Exception {
        Path in = Files.writeString(dir.resolve("tags.xyz"), """
                2
                Properties=species:S:1:pos:R:3:tags:I:1
                Ar 0 0 0 1
                Ar 3.9 0 0 2
                2
                Properties=species:S:1:pos:R:3:tags:R:1
                Ar 0 0 0 0.5
                Ar 4.0 0 0 1.5
                """);
        Path out = dir.resolve("tags.zarr");
        String printed = MainTest.run(ExitCodes.QUARANTINED, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01, steps=300)",
                "--potential", LJ, "--out", out.toString());
        assertThat(printed).contains("1 of 2 systems finished").contains("per-atom array 'tags' is R × 1, an earlier system's was I × 1");
        assertThat(Files.readString(dir.resolve("tags.zarr.quarantined.xyz"))).contains("tags:R:1").contains(" 1.5");
        assertThat(Files.exists(out.resolve("arrays/tags/.zarray"))).isTrue();
        try (var beside = Files.list(dir)) {
            assertThat(beside.map(p -> p.getFileName().toString()).sorted().toList())
                    .containsExactly("tags.xyz", "tags.zarr", "tags.zarr.quarantined.xyz");
        }
    }

    /// A `.zarr` folder holding a file of the user's is refused before the run, in one line, and
    /// left as it was (nothing made beside it).
    @Test
    void aZarrFolderHoldingTheUsersFilesIsRefusedBeforeTheRun() throws Exception {
        Path in = plainXyz();
        Path out = Files.createDirectories(dir.resolve("mine.zarr"));
        Files.writeString(out.resolve("notes.txt"), "mine");
        String printed = MainTest.run(ExitCodes.OUTPUT_FAILED, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01, steps=300)",
                "--potential", LJ, "--out", out.toString());
        assertThat(printed).contains("notes.txt").contains("did not write").doesNotContain("\tat ").doesNotContain("finished");
        assertThat(Files.readString(out.resolve("notes.txt"))).isEqualTo("mine");
        try (var beside = Files.list(dir)) {
            assertThat(beside.map(p -> p.getFileName().toString()).sorted().toList()).containsExactly("clusters.xyz", "mine.zarr");
        }
    }
}
