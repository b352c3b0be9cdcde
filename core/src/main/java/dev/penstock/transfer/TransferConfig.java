package dev.penstock.transfer;

import java.time.Duration;

/// Settings of a `TransferEngine`, validated at construction (errors name the option and value).
///
/// @param chunkBytes   bytes per chunk: the unit of copy and of kernel launch (≥ 1)
/// @param slots        staging buffers and device buffers, one pair per slot (≥ 2 for overlap,
///                     ≥ 1 allowed); device memory is `slots × chunkBytes` whatever the input
/// @param waitTimeout  longest wait for a slot to come back before the run fails naming the chunk
public record TransferConfig(long chunkBytes, int slots, Duration waitTimeout) {

    /// Validates every option.
    public TransferConfig {
        if (chunkBytes < 1) {
            throw new IllegalArgumentException("transfer option 'chunkBytes' must be positive, got " + chunkBytes);
        }
        if (slots < 1) {
            throw new IllegalArgumentException("transfer option 'slots' must be at least 1, got " + slots);
        }
        if (waitTimeout == null || waitTimeout.isNegative() || waitTimeout.isZero()) {
            throw new IllegalArgumentException("transfer option 'waitTimeout' must be a positive duration, got " + waitTimeout);
        }
    }

    /// `chunkBytes` per chunk, `slots` slots, a 1-minute wait bound.
    public static TransferConfig of(long chunkBytes, int slots) {
        return new TransferConfig(chunkBytes, slots, Duration.ofMinutes(1));
    }

    /// A copy with `waitTimeout` set (validated).
    public TransferConfig withWaitTimeout(Duration v) {
        return new TransferConfig(chunkBytes, slots, v);
    }
}
