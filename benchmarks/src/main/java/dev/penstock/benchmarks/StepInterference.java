package dev.penstock.benchmarks;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/// How much a single-threaded consumer step slows down on this machine when N other threads
/// each sleep 2 ms and then compute ~30 µs — the `loader` workload's I/O pattern without any
/// loader at all. It separates what the loader costs from what the cores cost.
///
/// Run: `java --add-modules jdk.incubator.vector -cp "cli/target/penstock-cli.jar:cli/target/lib/*"
/// dev.penstock.benchmarks.StepInterference [threads=16]`
public final class StepInterference {
    private StepInterference() {
    }

    /// Prints the step time alone, with N platform sleepers and with N virtual sleepers.
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        ModelStep step = new ModelStep().calibrate(5_000_000);
        double alone = time(step);
        double platform = withSleepers(step, n, false);
        double virtual = withSleepers(step, n, true);
        System.out.printf(Locale.ROOT, "step_ms_alone: %.3f%nstep_ms_with_%d_platform_sleepers: %.3f%n"
                + "step_ms_with_%d_virtual_sleepers: %.3f%nslowdown_platform: %.3f%nslowdown_virtual: %.3f%n",
                alone, n, platform, n, virtual, platform / alone, virtual / alone);
    }

    private static double withSleepers(ModelStep step, int n, boolean virtual) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] sleepers = new Thread[n];
        for (int i = 0; i < n; i++) {
            Thread.Builder b = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
            sleepers[i] = b.start(() -> {
                double s = 0;
                while (!stop.get()) {
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int k = 0; k < 20_000; k++) {
                        s += Math.sqrt(k);
                    }
                }
                if (s < 0) {
                    System.out.println(s);
                }
            });
        }
        double t = time(step);
        stop.set(true);
        for (Thread s : sleepers) {
            s.join();
        }
        return t;
    }

    private static double time(ModelStep step) {
        for (int i = 0; i < 10; i++) {
            step.step(null);
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < 60; i++) {
            step.step(null);
        }
        return (System.nanoTime() - t0) / 60 / 1e6;
    }
}
