package dev.penstock.benchmarks;

import dev.penstock.atoms.io.LammpsLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/// Runs of LAMMPS (`/usr/bin/lmp`) for the `md` benchmarks, and the medians they are read by.
final class LammpsRuns {
    static final String LMP = "/usr/bin/lmp";

    private LammpsRuns() {
    }

    /// Runs LAMMPS's `input` in `dir` on `procs` processes (`opt`: with `-sf opt`, which LAMMPS
    /// ignores for a style the OPT package lacks); fills its total energy per thermo line when
    /// `energy` is given; returns its loop time.
    static double run(Path dir, int procs, String input, boolean opt, List<Double> energy) throws Exception {
        return run(LMP, dir, procs, input, opt, energy);
    }

    /// `run` with the LAMMPS binary `lmp` (a build of its own: LAMMPS with ML-SNAP, say).
    static double run(String lmp, Path dir, int procs, String input, boolean opt, List<Double> energy) throws Exception {
        List<String> cmd = new ArrayList<>();
        if (procs > 1) {
            cmd.addAll(List.of("/usr/bin/mpirun", "--allow-run-as-root", "--oversubscribe", "-np", Integer.toString(procs)));
        }
        cmd.addAll(List.of(lmp, "-in", input, "-log", "log.lammps", "-screen", "none"));
        if (opt) {
            cmd.addAll(List.of("-sf", "opt"));
        }
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("LAMMPS failed (" + String.join(" ", cmd) + "): " + output);
        }
        LammpsLog log = LammpsLog.read(dir.resolve("log.lammps"));
        if (energy != null) {
            // the conserved quantity where the run has a thermostat (its `thermo_style` asks for it), else the total energy
            for (double e : log.column(log.columns().contains("Econserve") ? "Econserve" : "TotEng")) {
                energy.add(e);
            }
        }
        return log.loopSeconds();
    }

    static double median(double[] xs) {
        double[] c = xs.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    /// "0.123 0.130 …"
    static String seconds(double[] xs) {
        StringBuilder sb = new StringBuilder();
        for (double x : xs) {
            sb.append(sb.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%.3f", x));
        }
        return sb.toString();
    }
}
