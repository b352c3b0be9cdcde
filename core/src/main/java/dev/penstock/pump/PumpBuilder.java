package dev.penstock.pump;

import java.util.Objects;
import java.util.PrimitiveIterator;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;
import java.util.function.ToLongFunction;

/// Builds and starts a `Pump`: `Pump.builder(loader).config(c).source(keys).start()`.
public final class PumpBuilder<R> {
    final Pump.Loader<R> loader;
    PumpConfig config = PumpConfig.of(4, 2);
    PrimitiveIterator.OfLong source;
    ToLongFunction<? super R> sizer;
    LongUnaryOperator estimate;
    Consumer<? super R> discard;

    PumpBuilder(Pump.Loader<R> loader) {
        this.loader = Objects.requireNonNull(loader, "loader");
    }

    /// Depth, workers, budget and timeouts.
    public PumpBuilder<R> config(PumpConfig c) {
        this.config = Objects.requireNonNull(c, "config");
        return this;
    }

    /// The keys to load, pulled lazily; may be infinite.
    public PumpBuilder<R> source(PrimitiveIterator.OfLong s) {
        this.source = s;
        return this;
    }

    /// Bytes a loaded result holds, for the byte budget.
    public PumpBuilder<R> sizer(ToLongFunction<? super R> s) {
        this.sizer = s;
        return this;
    }

    /// Bytes the result for a key is expected to hold (≤ 0: unknown), reserved against the byte
    /// budget before the key is dispatched; without it the largest result seen so far is used.
    public PumpBuilder<R> estimate(LongUnaryOperator bytesOfKey) {
        this.estimate = bytesOfKey;
        return this;
    }

    /// Called for loaded results the consumer never took (on close), to release them.
    public PumpBuilder<R> onDiscard(Consumer<? super R> d) {
        this.discard = d;
        return this;
    }

    /// Starts the I/O threads and primes the pump.
    public Pump<R> start() {
        Objects.requireNonNull(source, "source");
        return new Pump<>(this);
    }
}
