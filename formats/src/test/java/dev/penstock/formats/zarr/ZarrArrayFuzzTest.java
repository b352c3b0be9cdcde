package dev.penstock.formats.zarr;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.penstock.io.BadInputException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/// Fuzzes the Zarr chunk decoders (Blosc frames above all, whose header offsets and sizes a
/// damaged chunk can make anything) from chunks zarr-python wrote: the first byte picks the
/// array's compressor, the rest is the chunk of a `[64, 4]` float64 array. Any chunk gives values
/// or a `BadInputException` naming the array and chunk; never another exception, a read outside
/// the chunk, a hang or an OOM.
class ZarrArrayFuzzTest {
    private static final String[] COMPRESSORS = {
        "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}",
        "{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 5, \"shuffle\": 0, \"blocksize\": 0}",
        "{\"id\": \"blosc\", \"cname\": \"zlib\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}",
        "{\"id\": \"zlib\", \"level\": 1}", "{\"id\": \"gzip\", \"level\": 1}", "{\"id\": \"zstd\", \"level\": 1}",
        "{\"id\": \"lz4\", \"acceleration\": 1}", "null"};

    @org.junit.jupiter.api.Timeout(value = 10, unit = java.util.concurrent.TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "30s")
    void anyChunkGivesValuesOrAClearError(byte[] bytes) throws IOException {
        if (bytes == null || bytes.length == 0) {
            return;
        }
        Path store = Files.createTempDirectory("fuzzed.zarr");
        try {
            Files.writeString(store.resolve(".zarray"), "{\"zarr_format\": 2, \"shape\": [64, 4], \"chunks\": [64, 4], \"dtype\": \"<f8\", "
                    + "\"compressor\": " + COMPRESSORS[(bytes[0] & 0xff) % COMPRESSORS.length] + ", \"fill_value\": 0.0, "
                    + "\"filters\": null, \"order\": \"C\"}");
            Files.write(store.resolve("0.0"), java.util.Arrays.copyOfRange(bytes, 1, bytes.length));
            ZarrArray z = ZarrArray.open(store);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment all = arena.allocate(z.byteSize(), 8);
                z.read(all);
            } catch (BadInputException expected) {
                if (!expected.getMessage().contains(store.getFileName().toString()) || !expected.getMessage().contains("chunk 0.0")) {
                    throw new AssertionError("error does not name the array and chunk: " + expected.getMessage());
                }
            }
        } finally {
            try (var files = Files.list(store)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(store);
        }
    }
}
