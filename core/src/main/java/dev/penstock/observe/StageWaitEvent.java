package dev.penstock.observe;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/// JFR event: a stage pipeline's worker waited — for samples with an empty batch (`input`), or
/// for room downstream to send a finished sample (`output`).
@Name("dev.penstock.StageWait")
@Label("Stage wait")
@Category({"Penstock", "Stages"})
@Description("A stage worker waited for input samples or for room downstream")
public final class StageWaitEvent extends Event {
    /// Index of the stage in chain order.
    @Label("Stage")
    public int stage;
    /// The stage's name ("fire+langevin").
    @Label("Name")
    public String name;
    /// "input" or "output".
    @Label("Direction")
    public String direction;
}
