package dev.penstock.formats.npy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;

/// Fuzzes the `.npy` header parser: any bytes give a header whose data lies inside the file,
/// or an `NpyFormatException` naming the file and byte; never another exception, a hang or an
/// OOM. `mvn test` replays the saved corpus (`NpyHeaderFuzzTestInputs/`); `scripts/fuzz.sh`
/// fuzzes for real.
class NpyHeaderFuzzTest {
    private static final Path FILE = Path.of("fuzzed.npy");

    @FuzzTest(maxDuration = "30s")
    void anyBytesGiveAHeaderInsideTheFileOrAClearError(byte[] bytes) {
        if (bytes == null) {
            return;
        }
        NpyHeader h;
        try {
            h = NpyHeader.parse(FILE, bytes, bytes.length);
        } catch (NpyFormatException expected) {
            if (!expected.getMessage().startsWith("fuzzed.npy: byte ")) {
                throw new AssertionError("error does not name the file and byte: " + expected.getMessage());
            }
            return;
        }
        if (h.dataOffset() < 0 || h.dataBytes() < 0 || h.dataOffset() + h.dataBytes() > bytes.length) {
            throw new AssertionError("header claims data outside the file: " + h);
        }
    }
}
