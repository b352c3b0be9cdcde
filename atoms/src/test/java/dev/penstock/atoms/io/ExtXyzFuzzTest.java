package dev.penstock.atoms.io;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.io.BadInputException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

/// Fuzzes the (extended) XYZ reader and writer: any text gives systems, which write back and
/// read again as the same systems, or a `BadInputException` naming the file and line; never
/// another exception, a hang or an OOM.
class ExtXyzFuzzTest {
    private static final Path FILE = Path.of("fuzzed.xyz");

    @FuzzTest(maxDuration = "30s")
    void anyTextGivesSystemsThatRoundTripOrAClearError(String text) throws IOException {
        if (text == null) {
            return; // Jazzer's null string: no text at all
        }
        List<AtomicSystem> systems;
        try {
            systems = ExtXyz.read(new BufferedReader(new StringReader(text)), FILE);
        } catch (BadInputException expected) {
            if (!expected.getMessage().startsWith("fuzzed.xyz:")) {
                throw new AssertionError("error does not name the file: " + expected.getMessage());
            }
            return;
        }
        StringWriter w = new StringWriter();
        ExtXyz.writeLenient(w, systems);
        List<AtomicSystem> again = ExtXyz.read(new BufferedReader(new StringReader(w.toString())), FILE);
        if (again.size() != systems.size()) {
            throw new AssertionError(systems.size() + " systems written, " + again.size() + " read back");
        }
        for (int i = 0; i < again.size(); i++) {
            if (!java.util.Arrays.equals(again.get(i).positions(), systems.get(i).positions())) {
                throw new AssertionError("system " + i + ": positions changed in a round trip");
            }
        }
    }
}
