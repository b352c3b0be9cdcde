package dev.penstock.device;

import java.util.concurrent.atomic.AtomicBoolean;

/// Whether this JVM can run Penstock's SIMD kernels: they use the incubating Vector API, which a
/// JVM loads only when started with `--add-modules jdk.incubator.vector` (the `penstock` script
/// does). Without it the encoder runs its scalar kernels and says so once.
public final class VectorSupport {
    /// The JVM option that loads the Vector API.
    public static final String OPTION = "--add-modules jdk.incubator.vector";
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    private static final AtomicBoolean SAID = new AtomicBoolean();

    private VectorSupport() {
    }

    /// True when the Vector API is loaded in this JVM.
    public static boolean available() {
        return AVAILABLE;
    }

    /// True when the Vector API is loaded; otherwise false, having logged once (logger
    /// `dev.penstock`, INFO) that `what` falls back to its scalar form.
    public static boolean orFallBack(String what) {
        if (!AVAILABLE && SAID.compareAndSet(false, true)) {
            System.getLogger("dev.penstock").log(System.Logger.Level.INFO,
                    "the Vector API is not loaded (JVM option " + OPTION + "): " + what + " runs its scalar kernels");
        }
        return AVAILABLE;
    }
}
