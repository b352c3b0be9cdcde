package dev.penstock.observe;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/// JFR event: a batch's preparation (consume, transforms, collate) ran on the prep stream.
@Name("dev.penstock.Prep")
@Label("Batch preparation")
@Category({"Penstock", "Loading"})
@Description("Copy, transforms and collation of one batch on the preprocessing stream")
public final class PrepEvent extends Event {
    /// Epoch of the batch.
    @Label("Epoch")
    public int epoch;
    /// Batch index within the epoch.
    @Label("Batch")
    public long batch;
    /// Samples in the batch.
    @Label("Samples")
    public int samples;
}
