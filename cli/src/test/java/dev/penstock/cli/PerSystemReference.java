package dev.penstock.cli;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.io.ExtXyzSink;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.History;
import dev.penstock.atoms.stage.NanHook;
import dev.penstock.atoms.stage.PerSystemStages;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Pipeline;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/// The reference `simulate` is held to: the same pipeline on the per-system stages of the
/// library (`PipelineSpec.build`: each system a heap object moved by its own method, evaluated by
/// the model alone), written as `simulate` writes its output (input order, the stage history in
/// each system's info).
final class PerSystemReference {
    private PerSystemReference() {
    }

    /// Writes the systems of `in` after `pipeline` over `potential` (Langevin noise keyed by
    /// `seed`, batches of at most `maxAtoms` atoms) to `out` (extended XYZ).
    static void write(Path in, String pipeline, String potential, long maxAtoms, long seed, Path out) throws Exception {
        List<AtomicSystem> systems;
        try (var r = Files.newBufferedReader(in)) {
            systems = ExtXyz.read(r, in);
        }
        Map<Long, Integer> position = new HashMap<>();
        for (int k = 0; k < systems.size(); k++) {
            position.put(systems.get(k).id(), k);
        }
        Supplier<? extends Model> model = PipelineSpec.potential(potential);
        try (Pipeline<AtomicSystem> p = PerSystemStages.build(PipelineSpec.parse(pipeline), model, seed, 1);
             ExtXyzSink sink = new ExtXyzSink(out, s -> position.get(s.id()))) {
            p.sizer(Systems.withListRadius(model.get().cutoff())).batchCapacity(Capacity.of(256, maxAtoms, Long.MAX_VALUE)).samples(systems)
                    .hook(History.hook(stage -> { })).hook(new NanHook(1, 1.0)).results(sink).run();
        }
    }
}
