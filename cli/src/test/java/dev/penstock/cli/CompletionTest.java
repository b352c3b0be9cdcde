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
