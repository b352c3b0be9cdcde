package dev.penstock.memory;

import java.util.concurrent.atomic.AtomicLong;

/// Process-wide accounting of the off-heap bytes Penstock holds: every arena adds what it
/// allocates and removes it when closed, so tests can assert that nothing leaked.
public final class Memory {
    private static final AtomicLong LIVE_BYTES = new AtomicLong();
    private static final AtomicLong LIVE_ARENAS = new AtomicLong();

    private Memory() {
    }

    /// Off-heap bytes currently allocated by open Penstock arenas and pools.
    public static long liveBytes() {
        return LIVE_BYTES.get();
    }

    /// Penstock arenas and pools currently open.
    public static long liveArenas() {
        return LIVE_ARENAS.get();
    }

    /// A new host arena usable from any thread (shared `java.lang.foreign.Arena`).
    public static HostArena newSharedArena(String name) {
        return new HostArena(name, true);
    }

    /// A new host arena usable only from the creating thread; cheaper to close.
    public static HostArena newConfinedArena(String name) {
        return new HostArena(name, false);
    }

    static void allocated(long bytes) {
        LIVE_BYTES.addAndGet(bytes);
    }

    static void freed(long bytes) {
        LIVE_BYTES.addAndGet(-bytes);
    }

    static void arenaOpened() {
        LIVE_ARENAS.incrementAndGet();
    }

    static void arenaClosed() {
        LIVE_ARENAS.decrementAndGet();
    }
}
