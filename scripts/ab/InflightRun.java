import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import java.util.List;

/// One run of `bench inflight`'s in-flight relaxation (512 LJ clusters, FIRE to fmax 0.01 under a
/// 2,000-atom budget, one device stage on `CpuDevice`), for `ab-atoms.sh`: loaded once per build.
/// It builds the pipeline itself rather than calling `InflightBench` (whose run is private and
/// lives in the benchmarks module) so that it runs against any build's atoms and core classes.
public final class InflightRun {
    private InflightRun() {
    }

    /// Seconds for one run on `threads` threads; `energy[0]` gets a checksum of the final energies.
    public static double run(int threads, double[] energy) {
        List<AtomicSystem> systems = Clusters.inflight(512, 2026);
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("relaxed");
        long t0 = System.nanoTime();
        try (CpuDevice cpu = new CpuDevice();
             Pipeline<AtomicSystem> p = Pipeline.of(DeviceStages.fire(Convergence.of(0.01, 5000), new LennardJones(1, 1, 2.5, true), cpu,
                     d -> new CpuRelaxKernels(threads)))
                     .sizer(Systems.withListRadius(2.5)).batchCapacity(Capacity.of(Long.MAX_VALUE, 2000, Long.MAX_VALUE))
                     .refillEvery(1).samples(systems).results(sink)) {
            p.run();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double sum = 0;
        for (AtomicSystem s : sink.samples()) {
            sum += s.energy() * s.id();
        }
        energy[0] = sum;
        return seconds;
    }
}
