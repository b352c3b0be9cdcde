package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.CpuDevice;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;

/// What the tests that hold a device stage to LAMMPS step by step share: running `/usr/bin/lmp`
/// on an input (its log `log.lammps` beside it), and one system through a stage on the CPU device
/// with a row of numbers taken at every step.
final class LammpsSteps {
    private static final Path LMP = Path.of("/usr/bin/lmp");
    /// The EAM potential of the copper starts.
    static final Path CU = Path.of("/usr/share/lammps/potentials/Cu_u3.eam");

    /// LAMMPS's start of the Lennard-Jones liquid (LJ units: 500 atoms, fcc at 0.8442, T 1.44,
    /// cut at 2.5, lists checked every step), its `write_data` as `start.data` after `before`
    /// (commands that change the box, or none).
    static String ljStart(String before) {
        return String.join("\n", "units lj", "atom_style atomic", "lattice fcc 0.8442", "region box block 0 5 0 5 0 5", "create_box 1 box",
                "create_atoms 1 box", "mass 1 1.0", "velocity all create 1.44 87287 loop geom", "pair_style lj/cut 2.5",
                "pair_coeff 1 1 1.0 1.0 2.5", "neighbor 0.3 bin", "neigh_modify delay 0 every 1 check yes", before, "write_data start.data", "");
    }

    /// LAMMPS's start of EAM copper (metal units: 500 atoms of `Cu_u3.eam`, 900 K, lists checked
    /// every step), as `ljStart`.
    static String copperStart(String before) {
        return String.join("\n", "units metal", "atom_style atomic", "lattice fcc 3.615", "region box block 0 5 0 5 0 5", "create_box 1 box",
                "create_atoms 1 box", "pair_style eam", "pair_coeff 1 1 " + CU, "velocity all create 900 4928459 loop geom", "neighbor 1.0 bin",
                "neigh_modify delay 0 every 1 check yes", before, "write_data start.data", "");
    }

    /// The run after a start: `fix`, thermo `columns` at every step as `%.17g`, `steps` of `dt`.
    static String run(String fix, String columns, double dt, int steps) {
        return String.join("\n", fix, "thermo_style custom step " + columns, "thermo_modify format float %.17g norm no", "thermo 1",
                "timestep " + dt, "run " + steps, "");
    }

    private LammpsSteps() {
    }

    /// Runs LAMMPS on `input` in `dir` (skipped where it is not installed, outside CI).
    static void lammps(Path dir, String input) throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        Files.writeString(dir.resolve("in.run"), input);
        Process p = new ProcessBuilder(LMP.toString(), "-in", "in.run", "-log", "log.lammps", "-screen", "none").directory(dir.toFile())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
    }

    /// `s` through `stage` (its batch on `cpu`, under `model`): `row` of the system at every step,
    /// 0 (its first evaluation) to the last, by step.
    static <R> TreeMap<Long, R> each(AtomicSystem s, Model model, CpuDevice cpu, Stage<AtomicSystem> stage, Function<AtomicSystem, R> row) {
        TreeMap<Long, R> rows = new TreeMap<>();
        Hook<AtomicSystem> hook = new Hook<>() {
            @Override
            public void onStep(int st, String name, long step, List<AtomicSystem> samples) {
                for (AtomicSystem x : samples) {
                    rows.put(x.heldStep(), row.apply(x));
                }
            }

            @Override
            public void onEvent(int st, Event<AtomicSystem> e) {
                if (e.kind() == Event.Kind.EXITED) {
                    rows.put(e.steps(), row.apply(e.sample()));
                }
            }
        };
        try (Pipeline<AtomicSystem> p = Pipeline.of(stage).sizer(Systems.withListRadius(model.cutoff())).batchCapacity(Capacity.of(2, s.atoms(),
                Long.MAX_VALUE)).samples(List.of(s)).results(MemorySink.unbounded("out")).hook(hook)) {
            p.run();
        }
        return rows;
    }
}
