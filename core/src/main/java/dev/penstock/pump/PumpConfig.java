package dev.penstock.pump;

import java.time.Duration;

/// Settings of a `Pump`, validated at construction (each error names the option and value).
///
/// @param depth        items dispatched and not yet handed to the consumer, at most (≥ 1)
/// @param budgetBytes  a bound on the bytes of items dispatched and not yet returned by `next()`
///                     (loading or loaded, as the pump's sizer measures them): never exceeded by
///                     more than one item. Each dispatch reserves the item's expected size (the
///                     builder's estimate, else the largest result seen so far, else the whole
///                     budget), a landed result settles it to its real size, and an item that does
///                     not fit waits unless nothing is in flight. A result larger than the whole
///                     budget fails its item. `Long.MAX_VALUE` for no budget; without a sizer it
///                     has no effect
/// @param workers      I/O threads running loads (≥ 1)
/// @param loadTimeout  how long `next()` waits for one item before failing with its index
/// @param closeTimeout how long `close()` waits for the I/O threads to stop
/// @param name         used in thread names (`penstock-io-NAME-k`) and messages
/// @param virtualThreads run loads on virtual threads instead of platform threads: a blocked
///                     load then costs no OS thread and wake-ups are cheap, which on few cores
///                     leaves more CPU to the consumer (see PERFORMANCE.md)
public record PumpConfig(int depth, long budgetBytes, int workers, Duration loadTimeout, Duration closeTimeout, String name,
                         boolean virtualThreads) {

    /// Validates every option, naming the option and value on error.
    public PumpConfig {
        if (depth < 1) {
            throw new IllegalArgumentException("pump option 'depth' must be at least 1, got " + depth);
        }
        if (budgetBytes < 1) {
            throw new IllegalArgumentException("pump option 'budgetBytes' must be positive, got " + budgetBytes);
        }
        if (workers < 1) {
            throw new IllegalArgumentException("pump option 'workers' must be at least 1, got " + workers);
        }
        requirePositive("loadTimeout", loadTimeout);
        requirePositive("closeTimeout", closeTimeout);
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("pump option 'name' must not be blank");
        }
    }

    /// Depth `depth`, `workers` threads, no byte budget, 5-minute load timeout, 1 s close bound.
    public static PumpConfig of(int depth, int workers) {
        return new PumpConfig(depth, Long.MAX_VALUE, workers, Duration.ofMinutes(5), Duration.ofSeconds(1), "pump", false);
    }

    /// A copy with `budgetBytes` set (validated).
    public PumpConfig withBudgetBytes(long v) {
        return new PumpConfig(depth, v, workers, loadTimeout, closeTimeout, name, virtualThreads);
    }

    /// A copy with `loadTimeout` set (validated).
    public PumpConfig withLoadTimeout(Duration v) {
        return new PumpConfig(depth, budgetBytes, workers, v, closeTimeout, name, virtualThreads);
    }

    /// A copy with `closeTimeout` set (validated).
    public PumpConfig withCloseTimeout(Duration v) {
        return new PumpConfig(depth, budgetBytes, workers, loadTimeout, v, name, virtualThreads);
    }

    /// A copy with `name` set (validated).
    public PumpConfig withName(String v) {
        return new PumpConfig(depth, budgetBytes, workers, loadTimeout, closeTimeout, v, virtualThreads);
    }

    /// A copy with `virtualThreads` set.
    public PumpConfig withVirtualThreads(boolean v) {
        return new PumpConfig(depth, budgetBytes, workers, loadTimeout, closeTimeout, name, v);
    }

    private static void requirePositive(String option, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("pump option '" + option + "' must be a positive duration, got " + d);
        }
    }
}
