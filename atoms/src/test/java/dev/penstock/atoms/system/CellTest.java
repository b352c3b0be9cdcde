package dev.penstock.atoms.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CellTest {

    @Test
    void fractionalCoordinatesInvertTheLatticeVectors() {
        Cell c = Cell.of(new double[] {5, 0, 0, 1.5, 4, 0, -1, 0.7, 6}, new boolean[] {true, true, true});
        double[] s = {0.3, -1.25, 2.5};
        double[] r = new double[3];
        for (int e = 0; e < 3; e++) {
            r[e] = s[0] * c.vector(0, e) + s[1] * c.vector(1, e) + s[2] * c.vector(2, e);
        }
        for (int d = 0; d < 3; d++) {
            assertThat(c.fractional(d, r[0], r[1], r[2])).isCloseTo(s[d], within(1e-12));
        }
        // face distance across c: the height of the cell over the a-b plane
        assertThat(c.faceDistance(2)).isCloseTo(6, within(1e-12));
        assertThat(c.isOrthorhombic()).isFalse();
    }

    @Test
    void aFreeAxisIsAPlainDistanceOrthogonalToThePeriodicOnes() {
        Cell c = Cell.of(new double[] {4, 0, 0, 2, 4, 0, 0, 0, 0}, new boolean[] {true, true, false});
        assertThat(c.fractional(2, 1, 2, 3.5)).isCloseTo(3.5, within(1e-12));
        assertThat(c.faceDistance(2)).isCloseTo(1, within(1e-12));
        Cell one = Cell.of(new double[] {0, 3, 4, 0, 0, 0, 0, 0, 0}, new boolean[] {true, false, false});
        for (int d = 1; d < 3; d++) { // the two free coordinates are distances in the plane normal to a
            double x = one.fractional(d, 1, 0, 0);
            double y = one.fractional(d, 0, -0.8, 0.6);
            assertThat(Math.abs(one.fractional(d, 0, 3, 4))).isCloseTo(0, within(1e-12));
            assertThat(x * x + y * y).isCloseTo(1, within(1e-12));
        }
    }

    @Test
    void badCellsAreRejectedWithTheReason() {
        assertThatThrownBy(() -> Cell.of(new double[] {1, 0, 0, 2, 0, 0, 0, 0, 1}, new boolean[] {true, true, true}))
                .hasMessageContaining("linearly dependent");
        assertThatThrownBy(() -> Cell.of(new double[] {1, 0, 0, 0, 0, 0, 0, 0, 1}, new boolean[] {true, true, true}))
                .hasMessageContaining("axis 1 is periodic but its lattice vector is zero");
        assertThatThrownBy(() -> Cell.of(new double[] {Double.NaN, 0, 0, 0, 1, 0, 0, 0, 1}, new boolean[3]))
                .hasMessageContaining("finite");
        assertThatThrownBy(() -> new AtomicSystem(7, new double[3], new double[] {1}, new int[1], new double[] {0, 1, 1},
                new boolean[] {true, false, false})).hasMessageContaining("system 7").hasMessageContaining("axis 0");
    }
}
