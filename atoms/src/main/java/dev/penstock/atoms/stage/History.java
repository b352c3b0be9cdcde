package dev.penstock.atoms.stage;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import java.util.function.IntConsumer;

/// What happened to a system in a pipeline, kept in its info (and so in extended XYZ output):
/// `stages="fire:32,langevin:2000,nve:1000"` (each sub-stage finished, with its steps) and, for a
/// quarantined system, `quarantined="<diagnosis>"`. Both runners write it the same way.
public final class History {
    private History() {
    }

    /// `s` finished sub-stage `method` after `steps` steps.
    public static void graduated(AtomicSystem s, String method, long steps) {
        s.info().merge("stages", method + ":" + steps, (a, b) -> a + "," + b);
    }

    /// A hook that keeps every event of a pipeline in its system's info (`graduated`,
    /// `quarantined`), then tells `left` the stage a system left (graduated from its last
    /// sub-stage, or quarantined): what `simulate` writes with each system.
    public static Hook<AtomicSystem> hook(IntConsumer left) {
        return new Hook<>() {
            @Override
            public void onEvent(int stage, Event<AtomicSystem> e) {
                if (e.kind() == Event.Kind.QUARANTINED) {
                    quarantined(e.sample(), e.method(), e.diagnosis());
                } else {
                    graduated(e.sample(), e.method(), e.steps());
                }
                if (e.left()) {
                    left.accept(stage);
                }
            }
        };
    }

    /// `s` was quarantined in sub-stage `method` for `diagnosis` (made safe for an XYZ comment).
    public static void quarantined(AtomicSystem s, String method, String diagnosis) {
        s.info().merge("stages", method + ":quarantined", (a, b) -> a + "," + b);
        s.info().put("quarantined", diagnosis.replace('"', '\'').replace('\\', '/').replace('\n', ' '));
    }
}
