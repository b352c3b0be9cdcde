package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.apache.flink.client.ClientUtils;
import org.apache.flink.client.deployment.executors.LocalExecutor;
import org.apache.flink.client.program.PackagedProgram;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The job jar the flink module builds runs as `flink run` runs it: a `PackagedProgram` from the
/// jar (Penstock loaded from the jar by Flink's child-first user class loader), its main class
/// from the manifest, executed by Flink's client against a local cluster.
class FlinkJobJarTest {
    @TempDir
    Path dir;

    private static Path jobJar() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("../flink/target"))) {
            return s.filter(p -> p.getFileName().toString().endsWith("-job.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no job jar in flink/target: build the flink module first"));
        }
    }

    @Test
    void theJobJarCarriesPenstockButNotFlink() throws Exception {
        try (ZipFile jar = new ZipFile(jobJar().toFile())) {
            assertThat(jar.getEntry("dev/penstock/flink/SimulateJob.class")).isNotNull();
            assertThat(jar.getEntry("dev/penstock/atoms/stage/PipelineSpec.class")).isNotNull();
            assertThat(jar.getEntry("dev/penstock/stage/StageBatch.class")).isNotNull();
            assertThat(jar.stream().filter(e -> e.getName().startsWith("org/apache/flink/")).count()).isZero();
        }
    }

    @Test
    void theJobJarRunsAsFlinkRunRunsIt() throws Exception {
        Path out = dir.resolve("results");
        PackagedProgram program = PackagedProgram.newBuilder().setJarFile(jobJar().toFile())
                .setArguments("--input", "../examples/argon-clusters.xyz", "--out", out.toString(),
                        "--pipeline", "fire(fmax=0.01) | nve(dt=5, steps=50)", "--potential", "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)",
                        "--parallelism", "1", "--checkpoint-interval", "200", "--max-atoms", "600")
                .build();
        assertThat(program.getMainClassName()).isEqualTo("dev.penstock.flink.SimulateJob");
        Class<?> main = program.getUserCodeClassLoader().loadClass("dev.penstock.flink.SimulateJob");
        assertThat(main.getProtectionDomain().getCodeSource().getLocation().getPath()).endsWith("-job.jar");
        Configuration conf = new Configuration();
        conf.set(DeploymentOptions.TARGET, LocalExecutor.NAME);
        conf.set(DeploymentOptions.ATTACHED, true);
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 2); // one per stage: the stages are in different slot-sharing groups
        conf.set(JobManagerOptions.SLOT_REQUEST_TIMEOUT, java.time.Duration.ofSeconds(30));
        ClientUtils.executeProgram(new DefaultExecutorServiceLoader(), conf, program, false, false);
        List<Path> parts;
        try (Stream<Path> s = Files.list(out)) {
            parts = s.filter(p -> p.getFileName().toString().startsWith("part-")).toList();
        }
        long systems = 0;
        for (Path p : parts) {
            try (BufferedReader in = Files.newBufferedReader(p)) {
                systems += dev.penstock.atoms.io.ExtXyz.read(in, p).size();
            }
        }
        assertThat(systems).isEqualTo(24);
    }
}
