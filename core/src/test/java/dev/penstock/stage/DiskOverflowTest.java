package dev.penstock.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskOverflowTest {
    @TempDir
    Path dir;

    @Test
    void spilledSamplesAreReadableByTheUserAloneAndComeBackInOrder() throws Exception {
        Path spill = dir.resolve("spill");
        try (DiskOverflow<Walker> d = new DiskOverflow<>(spill, Walker.CODEC, 1 << 20)) {
            for (Walker w : StageTest.walkers(5, 1)) {
                assertThat(d.offer(w)).isTrue();
            }
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(spill))).isEqualTo("rwx------");
            try (Stream<Path> files = Files.list(spill)) {
                for (Path f : files.toList()) {
                    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(f.toString()).isEqualTo("rw-------");
                }
            }
            for (Walker w : StageTest.walkers(5, 1)) {
                assertThat(d.poll().id).isEqualTo(w.id);
            }
        }
    }
}
