package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.testing.Ci;
import dev.penstock.testing.Python;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Each system's outcome (converged, unconverged, completed, quarantined), final fmax and, after
/// dynamics, temperature are in its output record and the summary; unconverged systems make exit
/// code 6 unless the relaxation was a step budget only; snapshots are labelled with the step
/// whose state they hold.
class SimulateOutcomeTest {
    private static final String LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";

    @TempDir
    Path dir;

    private Path input(int count) throws Exception {
        List<AtomicSystem> all;
        try (BufferedReader in = Files.newBufferedReader(Path.of("../examples/argon-clusters.xyz"))) {
            all = ExtXyz.read(in, Path.of("argon-clusters.xyz"));
        }
        Path in = dir.resolve("in.xyz");
        try (var w = Files.newBufferedWriter(in)) {
            ExtXyz.write(w, all.subList(0, count));
        }
        return in;
    }

    private static List<AtomicSystem> read(Path file) throws Exception {
        try (BufferedReader in = Files.newBufferedReader(file)) {
            return ExtXyz.read(in, file);
        }
    }

    @Test
    void aRelaxationThatSpendsItsBudgetIsUnconvergedInEveryRecordTheSummaryAndTheExitCode() throws Exception {
        Path in = input(4);
        Path out = dir.resolve("out.xyz");
        String printed = MainTest.run(ExitCodes.UNCONVERGED, "simulate", in.toString(), "--pipeline", "fire(fmax=1e-6, steps=20)",
                "--potential", LJ, "--out", out.toString());
        assertThat(printed).contains("outcomes: 4 unconverged (a relaxation spent its step budget before its fmax: systems 0, 1, 2, 3;");
        for (AtomicSystem s : read(out)) {
            assertThat(s.info()).containsEntry("outcome", "unconverged").containsEntry("stages", "fire:20");
            assertThat(Double.parseDouble(s.info().get("fmax"))).isEqualTo(s.maxForce()).isGreaterThan(1e-6);
        }
        String json = MainTest.stdout(ExitCodes.UNCONVERGED, "simulate", in.toString(), "--pipeline", "fire(fmax=1e-6, steps=20)",
                "--potential", LJ, "--out", out.toString(), "--json");
        assertThat(json).contains("\"outcomes\": {\"unconverged\": 4}, \"unconverged_ids\": [0, 1, 2, 3]");
        // the same budget asked for alone: a step budget only, not a failure
        String budget = MainTest.run(0, "simulate", in.toString(), "--pipeline", "fire(steps=20)", "--potential", LJ, "--out", out.toString());
        assertThat(budget).contains("outcomes: 4 completed");
        assertThat(read(out)).allSatisfy(s -> assertThat(s.info()).containsEntry("outcome", "completed").containsEntry("stages", "fire:20"));
        // a relaxation with neither: refused before anything runs
        assertThat(MainTest.run(ExitCodes.USAGE, "simulate", in.toString(), "--pipeline", "fire()", "--potential", LJ, "--out",
                dir.resolve("never.xyz").toString())).contains("'fire' needs 'fmax'").contains("or 'steps' alone");
    }

    @Test
    void convergedSystemsCarryTheirFmaxAndAfterDynamicsTheirTemperatureAsAseReadsThem() throws Exception {
        Path in = input(3);
        Path out = dir.resolve("md.xyz");
        String printed = MainTest.run(0, "simulate", in.toString(), "--pipeline", "fire(fmax=0.05) + langevin(T=60, dt=5, steps=40)",
                "--potential", LJ, "--out", out.toString());
        assertThat(printed).contains("outcomes: 3 converged");
        for (AtomicSystem s : read(out)) {
            assertThat(s.info()).containsEntry("outcome", "converged").containsKey("temperature");
        }
        // a re-run on that output: this run's outcome, not the last one's
        MainTest.run(ExitCodes.UNCONVERGED, "simulate", out.toString(), "--pipeline", "fire(fmax=1e-9, steps=3)", "--potential", LJ,
                "--out", dir.resolve("again.xyz").toString());
        assertThat(read(dir.resolve("again.xyz"))).allSatisfy(s -> assertThat(s.info()).containsEntry("outcome", "unconverged")
                .doesNotContainKey("temperature"));
        assumeTrue(Ci.required() || Python.has("ase"), "ASE is not installed");
        Python.Result r = Python.run("""
                import sys, ase.io, numpy as np
                for a in ase.io.read(sys.argv[1], ':'):
                    assert a.info['outcome'] == 'converged', a.info
                    f = np.sqrt((a.get_forces() ** 2).sum(axis=1)).max()
                    assert abs(a.info['fmax'] - f) <= 1e-12 * f, (a.info['fmax'], f)
                    # ASE 3.22's k_B is CODATA 2014's, 3.4e-7 below Penstock's (2018)
                    t = a.get_temperature()
                    assert abs(a.info['temperature'] - t) <= 1e-6 * t, (a.info['temperature'], t)
                print('ok')
                """, out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("ok");
    }

    @Test
    void aSnapshotLabelledStepKHoldsTheStateAKStepRunEndsWith() throws Exception {
        Path in = input(3);
        Path snaps = dir.resolve("snaps");
        MainTest.run(ExitCodes.UNCONVERGED, "simulate", in.toString(), "--pipeline", "fire(fmax=1e-9, steps=5)", "--potential", LJ,
                "--out", dir.resolve("five.xyz").toString(), "--snapshots", snaps.toString(), "--snapshot-every", "1");
        List<AtomicSystem> frames = read(snaps.resolve("stage-0.xyz"));
        List<AtomicSystem> inputs = read(in);
        assertThat(frames).isNotEmpty();
        for (AtomicSystem f : frames) {
            assertThat(f.info()).containsEntry("stage", "fire");
            int step = Integer.parseInt(f.info().get("step"));
            AtomicSystem want;
            if (step == 0) {
                want = inputs.get((int) f.id());
            } else {
                Path k = dir.resolve("k" + step + ".xyz");
                if (!Files.exists(k)) {
                    MainTest.run(0, "simulate", in.toString(), "--pipeline", "fire(steps=" + step + ")", "--potential", LJ, "--out", k.toString());
                }
                want = read(k).get((int) f.id());
            }
            assertThat(f.positions()).as("system %d, step %d", f.id(), step).containsExactly(want.positions());
        }
        assertThat(frames.stream().map(f -> f.info().get("step")).distinct()).contains("0", "4");
    }
}
