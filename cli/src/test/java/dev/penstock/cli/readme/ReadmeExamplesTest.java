package dev.penstock.cli.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.data.LoaderState;
import dev.penstock.stage.Summary;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// README.md's Java examples are the compiled code in this package, quoted verbatim, and they run.
class ReadmeExamplesTest {
    private static final Path SOURCES = Path.of("src/test/java/dev/penstock/cli/readme");
    private static final Path README = Path.of("../README.md");
    private static final Path EMBEDDING = Path.of("../docs/embedding.md");

    @TempDir
    Path dir;

    /// The lines between `// README:name begin` and `// README:name end`, their common indent removed.
    static String region(Path source, String name) throws Exception {
        List<String> lines = Files.readAllLines(source);
        int from = lines.indexOf(lines.stream().filter(l -> l.strip().equals("// README:" + name + " begin")).findFirst().orElseThrow());
        int to = lines.indexOf(lines.stream().filter(l -> l.strip().equals("// README:" + name + " end")).findFirst().orElseThrow());
        List<String> body = lines.subList(from + 1, to);
        int indent = body.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return String.join("\n", body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
    }

    @Test
    void theReadmeQuotesTheCompiledExamplesVerbatim() throws Exception {
        String readme = Files.readString(README);
        assertThat(readme).contains(region(SOURCES.resolve("ReadmeExamples.java"), "loader"));
        assertThat(readme).contains("Encoder.of(Encoding.AMPLITUDE, 2).encode(rows)"); // the line embedding.md's program runs
        String embedding = Files.readString(EMBEDDING);
        assertThat(embedding).contains(region(SOURCES.resolve("Features.java"), "dataset"));
        assertThat(embedding).contains(region(SOURCES.resolve("ReadmeExamples.java"), "loader"));
        assertThat(embedding).contains(region(SOURCES.resolve("EncodeExample.java"), "encode"));
        assertThat(embedding).contains(region(SOURCES.resolve("ReadmeExamples.java"), "imports"));
        assertThat(embedding).contains(region(SOURCES.resolve("ReadmeExamples.java"), "pipeline"));
    }

    @Test
    void theLoaderExampleRunsThreeEpochsOfBatchesAndSavesAStateAfterEach() {
        AtomicInteger steps = new AtomicInteger();
        List<LoaderState> saved = new ArrayList<>();
        try (Features dataset = new Features()) {
            ReadmeExamples.loader(dataset, batch -> {
                assertThat(batch.shape()[1]).isEqualTo(256);
                steps.incrementAndGet();
            }, saved::add);
        }
        int perEpoch = (1_000 + 31) / 32;
        assertThat(saved).hasSize(3 * perEpoch);
        assertThat(steps.get()).isEqualTo(3 * perEpoch);
    }

    @Test
    void theEncoderExampleRunsAndPrintsTheDocumentedState() {
        java.io.PrintStream was = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            EncodeExample.main(new String[0]);
        } finally {
            System.setOut(was);
        }
        String[] parts = printed.toString(java.nio.charset.StandardCharsets.UTF_8).strip().split("\\] \\[");
        double[] first = java.util.Arrays.stream(parts[0].substring(1).split(", ")).mapToDouble(Double::parseDouble).toArray();
        assertThat(first).containsExactly(new double[] {0.6, 0.8, 0, 0}, org.assertj.core.api.Assertions.within(2e-16));
        assertThat(parts[1]).isEqualTo("2, 4]");
    }

    @Test
    void thePipelineExampleDeliversEverySystemToItsOutput() throws Exception {
        List<AtomicSystem> systems;
        try (BufferedReader in = Files.newBufferedReader(Path.of("../examples/argon-clusters.xyz"))) {
            systems = ExtXyz.read(in, Path.of("argon-clusters.xyz")).subList(0, 3);
        }
        Path three = dir.resolve("three.xyz"); // the input as it is before the run moves the systems
        try (var w = Files.newBufferedWriter(three)) {
            ExtXyz.write(w, systems);
        }
        Path out = dir.resolve("argon.xyz");
        Summary<AtomicSystem> summary = ReadmeExamples.pipeline(systems, out);
        assertThat(summary.delivered() + summary.quarantined().size()).isEqualTo(3);
        List<AtomicSystem> written;
        try (BufferedReader in = Files.newBufferedReader(out)) {
            written = ExtXyz.read(in, out);
        }
        assertThat(written).hasSize((int) summary.delivered());
        // the command line beside it in the README, on the same systems: the same systems, bit for bit
        Path cli = dir.resolve("cli.xyz");
        dev.penstock.cli.Main.execute("simulate", three.toString(), "--pipeline",
                "fire(fmax=0.005) + langevin(T=40, dt=5, steps=2000) | nve(dt=5, steps=1000)", "--potential",
                "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)", "--max-atoms", "600", "--order", "completion", "--out", cli.toString(), "-q");
        List<AtomicSystem> fromCli;
        try (BufferedReader in = Files.newBufferedReader(cli)) {
            fromCli = ExtXyz.read(in, cli);
        }
        assertThat(fromCli).hasSize(written.size());
        for (AtomicSystem a : written) {
            AtomicSystem b = fromCli.stream().filter(s -> s.id() == a.id()).findFirst().orElseThrow();
            assertThat(b.positions()).as("system %d", a.id()).containsExactly(a.positions());
            assertThat(b.velocities()).containsExactly(a.velocities());
            assertThat(b.energy()).isEqualTo(a.energy());
            assertThat(b.info()).isEqualTo(a.info());
        }
    }
}
