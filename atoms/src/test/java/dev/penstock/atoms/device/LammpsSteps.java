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
