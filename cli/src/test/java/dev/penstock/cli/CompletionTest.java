package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Finding one's way: each command's help ends with examples, and `penstock generate-completion`
/// prints a bash completion script (picocli's) that completes subcommands and their options.
class CompletionTest {
    @TempDir
    Path dir;

    @Test
    void eachCommandsHelpEndsWithExamplesThenTheExitCodes() {
        for (String command : new String[] {"encode", "simulate", "inspect"}) {
            String help = MainTest.stdout(0, command, "--help");
            assertThat(help).as(command).contains("Examples:\n  penstock " + command + " ").contains("Exit codes: 0 done");
            assertThat(help.indexOf("Examples:")).as(command).isLessThan(help.indexOf("Exit codes:"));
        }
    }

    /// Help lists options under headings, required ones first and marked, and every option with
    /// a default states it; every option is in a group (none left to "Other" or unsorted).
    @Test
    void helpGroupsTheOptionsAndStatesEveryDefault() {
        java.util.Map<String, java.util.List<String>> headings = java.util.Map.of(
                "simulate", java.util.List.of("Output:", "Pipeline and potential:", "Batches, threads and device:", "Runner (local or Flink):",
                        "Reporting:", "General:"),
                "encode", java.util.List.of("Encoding:", "Input:", "Output:", "Device and pipeline:", "Reporting:", "General:"));
        for (var e : headings.entrySet()) {
            String help = MainTest.stdout(0, e.getKey(), "--help");
            int at = -1;
            for (String h : e.getValue()) {
                int k = help.indexOf("\n" + h + "\n");
                assertThat(k).as("%s: heading '%s' after the one before", e.getKey(), h).isGreaterThan(at);
                at = k;
            }
            assertThat(help).as(e.getKey()).doesNotContain("Other:").doesNotContain("Options:");
            picocli.CommandLine cl = new picocli.CommandLine(new Main()).getSubcommands().get(e.getKey());
            for (picocli.CommandLine.Model.OptionSpec o : cl.getCommandSpec().options()) {
                if (o.usageHelp() || o.versionHelp()) {
                    continue;
                }
                assertThat(o.order()).as("%s %s has a group", e.getKey(), o.longestName()).isGreaterThanOrEqualTo(100);
                if (o.defaultValue() != null && !o.type().equals(boolean.class)) {
                    assertThat(String.join(" ", o.description())).as("%s %s states its default", e.getKey(), o.longestName())
                            .containsIgnoringCase("default");
                }
            }
        }
        String simulate = MainTest.stdout(0, "simulate", "--help");
        assertThat(simulate.indexOf("--pipeline=STAGES")).as("required first in its group").isLessThan(simulate.indexOf("--seed=N"));
        assertThat(simulate).contains("(required) stages").contains("--mode=MODE").contains("default: sync")
                .contains("default: local").startsWith("Usage: penstock simulate [OPTIONS] INPUT.xyz");
    }

    @Test
    void theCompletionScriptCompletesSubcommandsAndOptionsInBash() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "bash is not installed");
        String script = MainTest.stdout(0, "generate-completion");
        Path f = dir.resolve("penstock-completion.bash");
        Files.writeString(f, script);
        Path probe = dir.resolve("probe.sh");
        Files.writeString(probe, """
                source "$1" 2>/dev/null
                complete() { :; }
                COMP_WORDS=(penstock sim); COMP_CWORD=1; COMP_LINE="penstock sim"; COMP_POINT=${#COMP_LINE}
                _complete_penstock 2>/dev/null; echo "subcommands: ${COMPREPLY[*]}"
                COMP_WORDS=(penstock encode --enc); COMP_CWORD=2; COMP_LINE="penstock encode --enc"; COMP_POINT=${#COMP_LINE}
                _complete_penstock 2>/dev/null; echo "options: ${COMPREPLY[*]}"
                COMP_WORDS=(penstock bench in); COMP_CWORD=2; COMP_LINE="penstock bench in"; COMP_POINT=${#COMP_LINE}
                _complete_penstock 2>/dev/null; echo "benches: ${COMPREPLY[*]}"
                """);
        Process p = new ProcessBuilder("/bin/bash", probe.toString(), f.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("subcommands: simulate").contains("options: --encoding").contains("benches: inflight");
    }
}
