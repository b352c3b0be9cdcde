package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.optimize.Fire;
import dev.penstock.atoms.optimize.Relaxation;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Memory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/// The packed relaxation on `CpuDevice`: the same relaxation as the per-system path (FIRE,
/// ASE-exact, as a stage runs it) to rounding, and, bit for bit, the same for a system whatever its batch
/// neighbours and however many threads the kernels use.
class PackedRelaxTest {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);
    private static final Convergence RULE = Convergence.of(0.01, 2000);

    static List<AtomicSystem> clusters(int count, long seed) {
        return Clusters.inflight(count, seed);
    }

    private static List<PackedRelax.Outcome> packed(List<AtomicSystem> systems, int threads, int maxAtoms) {
        try (CpuDevice cpu = new CpuDevice();
             PackedRelax relax = new PackedRelax(cpu, PairSummingKernels.summingPairs(threads), LJ, RULE, 256, maxAtoms)) {
            return relax.relax(systems);
        }
    }

    private static String state(AtomicSystem s) {
        return s.energy() + " " + Arrays.toString(s.positions()) + " " + Arrays.toString(s.forces());
    }

    @Test
    void packedRelaxationMatchesThePerSystemStageToRoundingWithTheSameStepCounts() {
        List<AtomicSystem> mine = clusters(48, 11);
        List<AtomicSystem> theirs = clusters(48, 11);
        List<PackedRelax.Outcome> outcomes = packed(mine, 2, 2000);
        for (AtomicSystem ref : theirs) {
            Relaxation.Result r = Relaxation.relax(new Fire(), ref, LJ, RULE); // the per-system path (the stage's FIRE)
            PackedRelax.Outcome o = outcomes.get((int) ref.id());
            assertThat(o.diagnosis()).isNull();
            assertThat(o.converged()).isEqualTo(r.converged()).isTrue();
            assertThat(Math.abs(o.energy() - r.energy()) / Math.abs(r.energy())).as("system %d", ref.id()).isLessThan(1e-10);
            assertThat(o.steps()).as("system %d steps", ref.id()).isEqualTo(r.steps());
            assertThat(mine.get((int) ref.id()).maxForce()).isLessThan(RULE.fmax());
        }
        assertThat(Memory.liveArenas()).isZero();
    }

    @Test
    void aSystemRelaxesBitForBitTheSameAloneOrInAnyBatchOnAnyNumberOfThreads() {
        List<String> reference = new ArrayList<>();
        List<AtomicSystem> all = clusters(20, 5);
        packed(all, 1, 700);
        for (AtomicSystem s : all) {
            reference.add(state(s));
        }
        AtomicSystem alone = clusters(20, 5).get(13);
        packed(List.of(alone), 1, 700);
        assertThat(state(alone)).isEqualTo(reference.get(13));
        for (int threads : new int[] {2, 3, 8}) {
            List<AtomicSystem> again = clusters(20, 5);
            packed(again, threads, 400); // smaller batch: other neighbours, other rows
            for (int k = 0; k < again.size(); k++) {
                assertThat(state(again.get(k))).as("system %d on %d threads", k, threads).isEqualTo(reference.get(k));
            }
        }
    }

    @Test
    void anOverlappingOrNonFiniteSystemIsTakenOutWithItsReasonAndTheOthersAreUntouched() {
        List<AtomicSystem> clean = clusters(12, 3);
        packed(clean, 2, 600);
        List<AtomicSystem> dirty = clusters(12, 3);
        System.arraycopy(dirty.get(4).positions(), 0, dirty.get(4).positions(), 3, 3); // atoms 0 and 1 on top of each other
        dirty.get(9).positions()[5] = Double.NaN;
        List<PackedRelax.Outcome> outcomes = packed(dirty, 2, 600);
        assertThat(outcomes.get(4).diagnosis()).contains("system 4").contains("overlap");
        assertThat(outcomes.get(4).converged()).isFalse();
        assertThat(outcomes.get(9).diagnosis()).contains("system 9").contains("non-finite position of atom 1 (z = NaN)");
        for (int k = 0; k < 12; k++) {
            if (k != 4 && k != 9) {
                assertThat(state(dirty.get(k))).as("system %d", k).isEqualTo(state(clean.get(k)));
                assertThat(outcomes.get(k).diagnosis()).isNull();
            }
        }
    }

    @Test
    void inputsThatAreAllRefusedEndTheRunWithTheirReasons() {
        List<AtomicSystem> in = clusters(5, 2);
        for (AtomicSystem s : in) {
            s.velocities()[4] = Double.POSITIVE_INFINITY;
        }
        List<PackedRelax.Outcome> outcomes = packed(in, 1, 600);
        for (int k = 0; k < 5; k++) {
            assertThat(outcomes.get(k).diagnosis()).isEqualTo("system " + k + ": non-finite velocity of atom 1 (y = Infinity)");
            assertThat(outcomes.get(k).steps()).isZero();
        }
    }

    @Test
    void aSystemThatRunsOutOfStepsStopsAtItsBudgetUnconverged() {
        List<AtomicSystem> in = clusters(6, 8);
        try (CpuDevice cpu = new CpuDevice();
             PackedRelax relax = new PackedRelax(cpu, PairSummingKernels.summingPairs(1), LJ, Convergence.of(1e-9, 7), 4, 500)) {
            for (PackedRelax.Outcome o : relax.relax(in)) {
                assertThat(o.steps()).isEqualTo(7);
                assertThat(o.converged()).isFalse();
            }
            assertThat(relax.size()).isZero();
            assertThat(relax.figures().batchSteps()).isGreaterThanOrEqualTo(8 * 2); // at most 4 at a time: two waves
        }
        // one step by hand (the same FIRE start as Fire), seven times: the same positions
        AtomicSystem ref = clusters(6, 8).getFirst();
        Fire fire = new Fire();
        LJ.compute(ref);
        for (int k = 0; k < 7; k++) {
            Relaxation.of(fire).step(ref);
            LJ.compute(ref);
        }
        for (int i = 0; i < ref.positions().length; i++) {
            assertThat(in.getFirst().positions()[i]).isCloseTo(ref.positions()[i], org.assertj.core.data.Offset.offset(1e-12));
        }
    }

    @Test
    void aTooLargeSystemIsRefusedBeforeAnythingRuns() {
        assertThatThrownBy(() -> packed(clusters(3, 1), 1, 10)).hasMessageContaining("the batch holds 1 to 10");
    }
}
