package dev.penstock.atoms.io;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.penstock.io.BadInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/// Fuzzes the LAMMPS data reader: any file gives a system or a `BadInputException` naming the
/// file; never another exception, a hang or an OOM.
class LammpsDataFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void anyFileGivesASystemOrAClearError(String text) throws IOException {
        if (text == null) {
            return; // Jazzer's null string: no text at all
        }
        Path f = Files.createTempFile("fuzzed", ".data");
        try {
            Files.writeString(f, text, StandardCharsets.UTF_8);
            try {
                LammpsData.read(f, 0);
            } catch (BadInputException expected) {
                if (!expected.getMessage().contains(f.getFileName().toString())) {
                    throw new AssertionError("error does not name the file: " + expected.getMessage());
                }
            }
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
