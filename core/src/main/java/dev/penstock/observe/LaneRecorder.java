package dev.penstock.observe;

/// Records one lane of a `Timeline` from one thread, joining spans of the same kind that follow
/// each other within `gapNs` into one: a stage worker's thousands of steps become one bar per
/// stretch of work between waits, so a long run's timeline stays small and its picture readable.
/// `flush()` hands the last open span over (call it when the lane's work ends).
///
/// Threading: one thread records; the timeline it flushes into takes any thread.
public final class LaneRecorder {
    private final Timeline timeline;
    private final String lane;
    private final long gapNs;
    private String kind;
    private long startNs;
    private long endNs;

    /// A recorder of `lane` into `timeline`, joining same-kind spans less than `gapNs` apart.
    public LaneRecorder(Timeline timeline, String lane, long gapNs) {
        this.timeline = timeline;
        this.lane = lane;
        this.gapNs = gapNs;
    }

    /// Work of `kind` from `startNs` to `endNs` (`System.nanoTime()` values, in order).
    public void record(String kind, long startNs, long endNs) {
        if (kind.equals(this.kind) && startNs - this.endNs <= gapNs) {
            this.endNs = endNs;
            return;
        }
        flush();
        this.kind = kind;
        this.startNs = startNs;
        this.endNs = endNs;
    }

    /// Hands the open span (if any) to the timeline.
    public void flush() {
        if (kind != null) {
            timeline.record(lane, kind, startNs, endNs);
            kind = null;
        }
    }
}
