package dev.penstock.atoms.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.io.SnapshotHook;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotHookTest {
    @TempDir
    Path dir;

    private static List<AtomicSystem> read(Path f) throws Exception {
        try (BufferedReader in = Files.newBufferedReader(f)) {
            return ExtXyz.read(in, f);
        }
    }

    @Test
    void snapshotsEveryKStepsAndOnceAtEachGraduation() throws Exception {
        Summary<AtomicSystem> s;
        try (SnapshotHook hook = new SnapshotHook(dir, 5)) {
            ModelEvaluator ev = new ModelEvaluator(new LennardJones(1, 1, 2.5, true));
            try (Pipeline<AtomicSystem> p = Stage.of(ev, Methods.fire(Convergence.of(0.05, 300))).fuse(Stage.of(ev, Methods.langevin(0.002, 0.1, 1, 1, 20)))
                    .then(Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), Methods.nve(0.002, 10)))
                    .sizer(Systems.withListRadius(2.5)).batchCapacity(Capacity.of(3, 60, 5000)).samples(AtomsPipelineTest.clusters(7, 4)).hook(hook)) {
                s = p.run();
            }
        }
        List<AtomicSystem> converged = read(dir.resolve("converged.xyz"));
        Map<Long, List<String>> stagesOf = converged.stream().collect(Collectors.groupingBy(AtomicSystem::id,
                Collectors.mapping(a -> a.info().get("stage"), Collectors.toList())));
        assertThat(stagesOf).hasSize(7);
        stagesOf.values().forEach(v -> assertThat(v).containsExactly("fire", "langevin", "nve"));
        assertThat(converged.stream().filter(a -> a.info().get("stage").equals("nve"))).allMatch(a -> a.info().get("steps").equals("10"));
        List<AtomicSystem> second = read(dir.resolve("stage-1.xyz"));
        assertThat(second).isNotEmpty().allMatch(a -> Long.parseLong(a.info().get("step")) % 5 == 0);
        // one snapshot every 5 steps of the stage, each of at most the batch's 3 systems
        assertThat(second.size()).isLessThanOrEqualTo((int) (s.stages().get(1).steps() / 5) * 3);
    }
}
