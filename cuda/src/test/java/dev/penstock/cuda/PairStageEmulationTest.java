package dev.penstock.cuda;

import static dev.penstock.cuda.StageEmulation.FCC;
import static dev.penstock.cuda.StageEmulation.cluster;
import static dev.penstock.cuda.StageEmulation.crystal;
import static dev.penstock.cuda.StageEmulation.sameAsTheCpu;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Morse;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Lennard-Jones and Morse on a device stage on CUDA (`relax.cu`'s pair kernels, `relax_virial`
/// for the virial), through the host emulation of the driver, against the same pipeline on
/// `CpuDevice` (the model over each system's rows): the same steps, energies to 1e-10, positions
/// to 1e-9 Å and the virial to 1e-10 of its largest component — free clusters, periodic boxes
/// summed over nearest images and boxes shorter than twice the cutoff (their images scanned, a
/// triclinic one among them). (The pair models sum the virial when set to, `virial(true)`, or
/// when a stage reads it every step: a barostat's.)
class PairStageEmulationTest {
    @Test
    void lennardJonesArgonOnCudaTakesTheCpuStepsWithItsVirial() {
        sameAsTheCpu(() -> new LennardJones(0.0104, 3.4, 8.5, true).virial(true), List.of(cluster(0, 55, 3.7, new int[] {18, 18}, 0, 1),
                crystal(1, FCC, 4, 5.26, 0, new int[] {18, 18}, 0, 2), crystal(2, FCC, 3, 5.26, 0, new int[] {18, 18}, 0, 3),
                crystal(3, FCC, 3, 5.26, 1.4, new int[] {18, 18}, 0, 4)));
    }

    @Test
    void morseCopperOnCudaTakesTheCpuStepsWithItsVirial() {
        sameAsTheCpu(() -> new Morse(0.3429, 1.3588, 2.866, 9.0).virial(true), List.of(cluster(10, 43, 2.55, new int[] {29, 29}, 0, 5),
                crystal(11, FCC, 3, 3.615, 0.6, new int[] {29, 29}, 0, 6)));
    }
}
