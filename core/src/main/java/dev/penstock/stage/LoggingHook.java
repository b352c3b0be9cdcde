package dev.penstock.stage;

import java.util.List;

/// Logs, every `every` steps of each stage, the stage's step and batch size, and each
/// quarantine (at WARNING, with its diagnosis), through `System.Logger` ("dev.penstock.stage").
///
/// @param <S> the sample type
public final class LoggingHook<S> implements Hook<S> {
    private static final System.Logger LOG = System.getLogger("dev.penstock.stage");
    private final int every;

    /// A hook logging every `every` steps.
    public LoggingHook(int every) {
        if (every < 1) {
            throw new IllegalArgumentException("logging hook: 'every' must be at least 1, got " + every);
        }
        this.every = every;
    }

    @Override
    public int every() {
        return every;
    }

    @Override
    public void onStep(int stage, String name, long step, List<S> samples) {
        LOG.log(System.Logger.Level.INFO, "stage {0} ({1}) step {2}: {3} samples", stage, name, step, samples.size());
    }

    @Override
    public void onEvent(int stage, Event<S> event) {
        if (event.kind() == Event.Kind.QUARANTINED) {
            LOG.log(System.Logger.Level.WARNING, "stage {0}: quarantined: {1}", stage, event.diagnosis());
        }
    }
}
