package dev.penstock.observe;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/// JFR event: the consumer waited in `Pump.next()` for an item that was not loaded yet.
@Name("dev.penstock.PumpWait")
@Label("Pump wait")
@Category({"Penstock", "Loading"})
@Description("The consumer waited for the next item of a prefetch pump")
public final class PumpWaitEvent extends Event {
    /// Name of the pump.
    @Label("Pump")
    public String pump;
    /// Position of the item in pull order.
    @Label("Sequence")
    public long sequence;
    /// Key (sample index) of the item.
    @Label("Key")
    public long key;
}
