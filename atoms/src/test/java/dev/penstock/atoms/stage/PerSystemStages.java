package dev.penstock.atoms.stage;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Method;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import java.util.List;
import java.util.function.Supplier;

/// The reference the device stages are held to, bit for bit: a `PipelineSpec` pipeline on the
/// per-sample batch — each system a heap object moved by its own `Methods` motion (the
/// optimisers and integrators of `atoms.optimize`/`atoms.integrate`), the batch evaluated by a
/// `ModelEvaluator`. Test code only: `simulate`, the Flink job and the library's stages run device
/// stages (`DeviceStages`).
public final class PerSystemStages {
    private PerSystemStages() {
    }

    /// The method of one call; `seed` keys Langevin noise.
    public static Method<AtomicSystem> method(PipelineSpec.Call c, long seed) {
        PipelineSpec.check(c);
        return switch (c.name()) {
            case "fire", "fire2", "fire_mw" -> {
                Convergence rule = PipelineSpec.convergence(c);
                yield switch (c.name()) {
                    case "fire" -> Methods.fire(rule);
                    case "fire2" -> Methods.fire2(rule);
                    default -> Methods.fireMassWeighted(rule);
                };
            }
            case "langevin" -> {
                PipelineSpec.Thermostat t = PipelineSpec.langevin(c);
                yield Methods.langevin(t.dt(), t.kT(), t.gamma(), seed, t.steps());
            }
            default -> {
                PipelineSpec.Verlet v = PipelineSpec.verlet(c);
                yield Methods.nve(v.dt(), v.steps());
            }
        };
    }

    /// The pipeline: a fresh model per stage (chained stages run on their own workers).
    public static Pipeline<AtomicSystem> build(List<List<PipelineSpec.Call>> stages, Supplier<? extends Model> model, long seed) {
        return build(stages, model, seed, 1);
    }

    /// As `build`, each stage's steps split over `threads` threads (`Stage.threads`; no result
    /// changes).
    public static Pipeline<AtomicSystem> build(List<List<PipelineSpec.Call>> stages, Supplier<? extends Model> model, long seed, int threads) {
        Pipeline<AtomicSystem> p = null;
        for (List<PipelineSpec.Call> fused : stages) {
            Stage<AtomicSystem> stage = stage(fused, model, seed, threads);
            p = p == null ? Pipeline.of(stage) : p.then(stage);
        }
        return p;
    }

    /// One chained stage: its fused calls over one new model.
    public static Stage<AtomicSystem> stage(List<PipelineSpec.Call> fused, Supplier<? extends Model> model, long seed) {
        return stage(fused, model, seed, 1);
    }

    /// One chained stage, its steps split over `threads` threads.
    public static Stage<AtomicSystem> stage(List<PipelineSpec.Call> fused, Supplier<? extends Model> model, long seed, int threads) {
        ModelEvaluator ev = new ModelEvaluator(model.get());
        Stage<AtomicSystem> stage = null;
        for (PipelineSpec.Call c : fused) {
            Stage<AtomicSystem> s = Stage.of(ev, method(c, seed));
            stage = stage == null ? s : stage.fuse(s);
        }
        return stage.threads(threads);
    }
}
