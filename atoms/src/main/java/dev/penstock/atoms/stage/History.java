package dev.penstock.atoms.stage;

import dev.penstock.atoms.integrate.Units;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import java.util.Set;
import java.util.function.IntConsumer;

/// What happened to a system in a pipeline, kept in its info (and so in its output record; both
/// runners write it the same way):
///
/// - `stages="fire:32,langevin:2000,nve:1000"`: each sub-stage finished, with its steps;
/// - `outcome`: `converged` (every relaxation met its fmax), `unconverged` (one spent its step
///   budget first), `completed` (nothing had to converge: dynamics, step budgets only) or
///   `quarantined` (with `quarantined="<diagnosis>"`);
/// - when it leaves a stage: `fmax`, its max |F_i| (eV/Å), and after dynamics `temperature`, its
///   kinetic temperature Σ m v² / (3 N k_B) in K (3N degrees of freedom, as ASE's
///   `Atoms.get_temperature`);
/// - after a thermostat or barostat with a conserved quantity (`nvt`, `npt`, `nph`):
///   `conserved_energy` (eV) and `conserved_energy_drift` (eV, its change since the sub-stage
///   began), which the stage writes;
/// - after dynamics, for a system periodic along every axis whose model gave a virial: `volume`
///   (Å³), `pressure` (eV/Å³, (Σ m v² + tr W) / 3V: the kinetic part included, as LAMMPS's
///   `press`; ASE's `stress` is the virial's part alone, −W/V) and `pressure_tensor` (eV/Å³, its
///   nine components row-major, P_ab = (Σ m v_a v_b + W_ab) / V: LAMMPS's `pxx pxy …`; its trace
///   over 3 is `pressure`).
public final class History {
    /// The info keys `History` writes.
    public static final Set<String> KEYS = Set.of("stages", "outcome", "quarantined", "fmax", "temperature", "conserved_energy",
            "conserved_energy_drift", "pressure", "pressure_tensor", "volume");
    private static final Set<String> DYNAMICS = Set.of("langevin", "nve", "nvt", "npt", "nph");
    private static final Set<String> CONSERVING = Set.of("nvt", "npt", "nph");

    private History() {
    }

    /// Removes what an earlier run wrote (`KEYS`), for a system read from an earlier output.
    public static void fresh(AtomicSystem s) {
        s.info().keySet().removeAll(KEYS);
    }

    /// `s` finished sub-stage `method` after `steps` steps, as `ending` says.
    public static void graduated(AtomicSystem s, String method, long steps, Event.Ending ending) {
        s.info().merge("stages", method + ":" + steps, (a, b) -> a + "," + b);
        String was = s.info().get("outcome");
        switch (ending) {
            case BUDGET_SPENT -> s.info().put("outcome", "unconverged");
            case CONVERGED -> {
                if (!"unconverged".equals(was)) {
                    s.info().put("outcome", "converged");
                }
            }
            case STEPS_RUN -> {
                if (was == null) {
                    s.info().put("outcome", "completed");
                }
            }
        }
    }

    /// Records event `e` in its system's info (`graduated`, `quarantined`, and on leaving a
    /// stage its `fmax` and, after dynamics, `temperature`).
    public static void record(Event<AtomicSystem> e) {
        AtomicSystem s = e.sample();
        if (e.kind() == Event.Kind.QUARANTINED) {
            quarantined(s, e.method(), e.diagnosis());
            return;
        }
        graduated(s, e.method(), e.steps(), e.ending());
        if (e.kind() == Event.Kind.EXITED) {
            s.info().put("fmax", Double.toString(s.maxForce()));
            if (DYNAMICS.contains(e.method())) {
                s.info().put("temperature", Double.toString(temperature(s)));
            } else {
                s.info().remove("temperature");
            }
            double p = DYNAMICS.contains(e.method()) ? pressure(s) : Double.NaN;
            if (Double.isNaN(p)) {
                s.info().remove("pressure");
                s.info().remove("pressure_tensor");
                s.info().remove("volume");
            } else {
                s.info().put("pressure", Double.toString(p));
                StringBuilder tensor = new StringBuilder();
                for (double x : pressureTensor(s)) {
                    tensor.append(tensor.isEmpty() ? "" : " ").append(x);
                }
                s.info().put("pressure_tensor", tensor.toString());
                s.info().put("volume", Double.toString(s.cell().volume()));
            }
            if (!CONSERVING.contains(e.method())) { // the stage it leaves kept no conserved quantity
                s.info().remove("conserved_energy");
                s.info().remove("conserved_energy_drift");
            }
        }
    }

    /// The pressure (eV/Å³) of a system periodic along every axis with a virial: (Σ m v² + tr W)
    /// / 3V; NaN otherwise.
    public static double pressure(AtomicSystem s) {
        double[] w = s.virial();
        double volume = s.cell().volume();
        if (w == null || !(volume > 0)) {
            return Double.NaN;
        }
        return (dev.penstock.atoms.integrate.Mtk.mv2(s.velocities(), s.masses(), s.atoms()) + w[0] + w[4] + w[8]) / 3.0 * (1 / volume);
    }

    /// The pressure tensor (eV/Å³, row-major) of a system periodic along every axis with a virial:
    /// P_ab = (Σ m v_a v_b + W_ab) / V; null otherwise.
    public static double[] pressureTensor(AtomicSystem s) {
        double[] w = s.virial();
        double volume = s.cell().volume();
        if (w == null || !(volume > 0)) {
            return null;
        }
        double[] v = s.velocities();
        double[] m = s.masses();
        double[] p = new double[9];
        for (int i = 0; i < s.atoms(); i++) {
            for (int a = 0; a < 3; a++) {
                for (int b = 0; b < 3; b++) {
                    p[3 * a + b] += m[i] * v[3 * i + a] * v[3 * i + b];
                }
            }
        }
        for (int x = 0; x < 9; x++) {
            p[x] = (p[x] + w[x]) / volume;
        }
        return p;
    }

    /// Kinetic temperature (K) with 3N degrees of freedom.
    public static double temperature(AtomicSystem s) {
        double[] v = s.velocities();
        double[] m = s.masses();
        double twiceKinetic = 0;
        for (int i = 0; i < s.atoms(); i++) {
            twiceKinetic += m[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        }
        return twiceKinetic / (3.0 * s.atoms() * Units.KB_EV_PER_K);
    }

    /// A hook that records every event of a pipeline in its system's info (`record`), then tells
    /// `left` the stage a system left (graduated from its last sub-stage, or quarantined): what
    /// `simulate` writes with each system.
    public static Hook<AtomicSystem> hook(IntConsumer left) {
        return new Hook<>() {
            @Override
            public void onEvent(int stage, Event<AtomicSystem> e) {
                record(e);
                if (e.left()) {
                    left.accept(stage);
                }
            }
        };
    }

    /// `s` was quarantined in sub-stage `method` for `diagnosis` (made safe for an XYZ comment).
    public static void quarantined(AtomicSystem s, String method, String diagnosis) {
        s.info().merge("stages", method + ":quarantined", (a, b) -> a + "," + b);
        s.info().put("outcome", "quarantined");
        s.info().put("quarantined", diagnosis.replace('"', '\'').replace('\\', '/').replace('\n', ' '));
    }
}
