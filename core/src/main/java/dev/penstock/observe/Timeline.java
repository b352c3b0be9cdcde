package dev.penstock.observe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/// Spans of work on named lanes (an I/O thread, a stream, the writer) over wall time, for
/// drawing where a run's time went and how its stages overlapped.
///
/// Threading: any thread may record; spans are kept in recording order under a lock (a few per
/// chunk, never per element).
public final class Timeline {
    /// One piece of work: `kind` (read, wait, copy, kernel, write, …) on `lane`, in
    /// nanoseconds from the timeline's origin.
    public record Span(String lane, String kind, long startNs, long endNs) {
    }

    private final long originNs = System.nanoTime();
    private final List<Span> spans = new ArrayList<>();

    /// Records work on `lane` from `startNs` to `endNs` (`System.nanoTime()` values).
    public void record(String lane, String kind, long startNs, long endNs) {
        Span s = new Span(lane, kind, startNs - originNs, endNs - originNs);
        synchronized (spans) {
            spans.add(s);
        }
    }

    /// A snapshot of the spans.
    public List<Span> spans() {
        synchronized (spans) {
            return Collections.unmodifiableList(new ArrayList<>(spans));
        }
    }
}
