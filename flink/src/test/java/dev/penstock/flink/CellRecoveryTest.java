package dev.penstock.flink;

import java.nio.file.Path;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/// Stages that change each system's cell — an MTK barostat fused with a variable-cell FIRE, then
/// FIRE 2.0 over the cell — in a Flink job that loses a task manager (`DeviceRecoveryTest`'s
/// protocol, on a cluster of its own): the packed batches, their barostat state and every
/// system's changed cell restored from the checkpoint, every system committed once, bit for bit
/// and in the very cell the local run leaves it.
class CellRecoveryTest {
    /// Two task managers of 3 slots: a three-stage job at parallelism 2 needs both.
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(2).setNumberSlotsPerTaskManager(3).build());

    /// On periodic argon crystals: NPT fused with a variable-cell FIRE, the slow per-system NVE,
    /// then FIRE 2.0 over the cell.
    private static final String CELLS = "npt(T=30, P=500, tdamp=200, pdamp=1000, dt=4, steps=400) + fire_cell(fmax=0.01, P=200) "
            + "| nve(dt=4, steps=40) | fire2_cell(fmax=0.02, steps=300)";

    @TempDir
    Path dir;

    @Test
    void losingATaskManagerMidBarostatRestoresEverySystemsCellBitForBit(@InjectMiniCluster MiniCluster cluster) throws Exception {
        DeviceRecoveryTest.losesATaskManager(cluster, dir, CELLS, () -> Argon.crystals(24, 9));
    }
}
