package dev.penstock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BlockTest {
    private long liveBefore;

    @BeforeEach
    void record() {
        liveBefore = Memory.liveBytes();
    }

    @AfterEach
    void nothingLeaked() {
        assertThat(Memory.liveBytes()).as("live off-heap bytes after the test").isEqualTo(liveBefore);
    }

    @Test
    void allocationIsZeroedContiguousAndCountedUntilTheArenaCloses() {
        try (HostArena arena = Memory.newConfinedArena("t")) {
            Block b = arena.allocate(DType.F32, 2, 3);
            assertThat(b.shape()).containsExactly(2, 3);
            assertThat(b.strides()).containsExactly(3, 1);
            assertThat(b.isContiguous()).isTrue();
            assertThat(b.byteSize()).isEqualTo(24);
            assertThat(b.getFloat(5)).isZero();
            assertThat(Memory.liveBytes() - liveBefore).isEqualTo(24);
            assertThat(arena.allocatedBytes()).isEqualTo(24);
        }
        assertThat(Memory.liveBytes()).isEqualTo(liveBefore);
    }

    @Test
    void everyDTypeRoundTripsThroughItsAccessor() {
        try (HostArena arena = Memory.newConfinedArena("t")) {
            Block f = arena.allocate(DType.F32, 4);
            f.setFloat(3, 1.5f);
            assertThat(f.getFloat(3)).isEqualTo(1.5f);
            Block d = arena.allocate(DType.F64, 4);
            d.setDouble(1, Math.PI);
            assertThat(d.getDouble(1)).isEqualTo(Math.PI);
            Block i = arena.allocate(DType.I32, 4);
            i.setInt(2, -7);
            assertThat(i.getInt(2)).isEqualTo(-7);
            Block l = arena.allocate(DType.I64, 4);
            l.setLong(0, Long.MIN_VALUE);
            assertThat(l.getLong(0)).isEqualTo(Long.MIN_VALUE);
            Block u = arena.allocate(DType.U8, 4);
            u.setUnsignedByte(1, 250);
            assertThat(u.getUnsignedByte(1)).isEqualTo(250);
            Block c = arena.allocate(DType.C64, 2);
            c.setComplex(1, 0.5, -0.25);
            assertThat(c.getReal(1)).isEqualTo(0.5);
            assertThat(c.getImag(1)).isEqualTo(-0.25);
            assertThat(c.byteSize()).isEqualTo(16);
            Block z = arena.allocate(DType.C128, 2);
            z.setComplex(0, 1e-300, 3);
            assertThat(z.getReal(0)).isEqualTo(1e-300);
            assertThat(z.getImag(0)).isEqualTo(3);
            assertThat(z.byteSize()).isEqualTo(32);
        }
    }

    @Test
    void readingWithTheWrongTypeFailsNamingBothTypes() {
        try (HostArena arena = Memory.newConfinedArena("t")) {
            Block f = arena.allocate(DType.F32, 4);
            assertThatThrownBy(() -> f.getDouble(0)).hasMessageContaining("f32").hasMessageContaining("f64");
        }
    }

    @Test
    void slicesAndReshapesShareMemory() {
        try (HostArena arena = Memory.newConfinedArena("t")) {
            Block b = arena.allocate(DType.I32, 4, 3);
            for (int i = 0; i < 12; i++) {
                b.setInt(i, i);
            }
            Block rows = b.slice(1, 3);
            assertThat(rows.shape()).containsExactly(2, 3);
            assertThat(rows.getInt(0)).isEqualTo(3);
            rows.setInt(5, 100);
            assertThat(b.getInt(8)).isEqualTo(100);
            Block flat = b.reshape(12);
            assertThat(flat.getInt(8)).isEqualTo(100);
            assertThat(b.offsetOf(2, 1)).isEqualTo(7 * 4);
            assertThatThrownBy(() -> b.slice(3, 5)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> b.getInt(12)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void copyFromChecksShapeAndCopiesEveryElement() {
        try (HostArena arena = Memory.newConfinedArena("t")) {
            Block a = arena.allocate(DType.F64, 3);
            Block b = arena.allocate(DType.F64, 3);
            a.setDouble(2, 9);
            b.copyFrom(a);
            assertThat(b.getDouble(2)).isEqualTo(9);
            Block c = arena.allocate(DType.F64, 4);
            assertThatThrownBy(() -> c.copyFrom(a)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void dtypeLabelsParseAndUnknownOnesAreNamed() {
        assertThat(DType.parse("c128")).isEqualTo(DType.C128);
        assertThat(DType.parse("float32")).isEqualTo(DType.F32);
        assertThatThrownBy(() -> DType.parse("f16")).hasMessageContaining("'f16'").hasMessageContaining("c128");
    }

    @Test
    void negativeExtentsAreRejected() {
        try (HostArena arena = Memory.newConfinedArena("t")) {
            assertThatThrownBy(() -> arena.allocate(DType.F32, 2, -1)).hasMessageContaining("negative");
        }
    }
}
