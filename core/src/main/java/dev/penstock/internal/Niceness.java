package dev.penstock.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/// Lowers the scheduling priority of the calling platform thread (Linux's per-thread nice value,
/// `setpriority(PRIO_PROCESS, gettid(), n)`): background threads — a loader's I/O threads and its
/// preprocessing stream — then take the cores a training step leaves idle instead of taking
/// turns with it. On a machine with fewer cores than runnable threads, the fair scheduler would
/// otherwise hand the step's core to a burst of loads for a share of each batch. Raising a nice
/// value needs no privilege; elsewhere than Linux, or if the call fails, nothing changes.
public final class Niceness {
    private static final MethodHandle GETTID;
    private static final MethodHandle SETPRIORITY;

    static {
        MethodHandle gettid = null;
        MethodHandle setpriority = null;
        if (System.getProperty("os.name", "").startsWith("Linux")) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                gettid = libc.find("gettid").map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT))).orElse(null);
                setpriority = libc.find("setpriority").map(a -> linker.downcallHandle(a,
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT))).orElse(null);
            } catch (RuntimeException | LinkageError e) {
                gettid = null; // native access refused: run at the normal priority
                setpriority = null;
            }
        }
        GETTID = gettid;
        SETPRIORITY = setpriority == null ? null : setpriority;
    }

    private Niceness() {
    }

    /// Sets the calling thread's nice value to `nice` (0 … 19; higher: less CPU under contention).
    /// Returns whether it was set. A virtual thread is left alone (it would set its carrier's).
    public static boolean lower(int nice) {
        if (nice < 0 || nice > 19) {
            throw new IllegalArgumentException("nice must be 0 … 19, got " + nice);
        }
        if (GETTID == null || SETPRIORITY == null || Thread.currentThread().isVirtual()) {
            return false;
        }
        try {
            int tid = (int) GETTID.invokeExact();
            return (int) SETPRIORITY.invokeExact(0, tid, nice) == 0; // PRIO_PROCESS with a thread id: that thread alone
        } catch (Throwable e) {
            return false;
        }
    }

    /// The calling thread's nice value (Linux; 0 elsewhere or when it cannot be read).
    public static int current() {
        if (GETTID == null) {
            return 0;
        }
        try {
            int tid = (int) GETTID.invokeExact();
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/task/" + tid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(f[16]); // field 19 of stat: nice
        } catch (Throwable e) {
            return 0;
        }
    }
}
