package dev.penstock.cli;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Sink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/// How the systems written to OUT ended (their `outcome` info, `dev.penstock.atoms.stage.History`):
/// counted for the summary, `--json` and the exit code (`ExitCodes.UNCONVERGED` when a relaxation
/// spent its step budget before its fmax).
final class Outcomes {
    private static final int LISTED = 20;
    private final Map<String, Long> counts = new TreeMap<>();
    private final List<Long> unconverged = new ArrayList<>();
    private long unconvergedCount;
    // after dynamics: each written system's temperature (and, periodic, its pressure and volume);
    // after nvt, npt, nph: the largest conserved-energy drift
    private final Range temperature = new Range();
    private final Range pressure = new Range();
    private final Range volume = new Range();
    private double worstDrift = -1;
    private double worstDriftRelative;
    private long worstDriftId;

    /// Counts `s`.
    synchronized void add(AtomicSystem s) {
        String outcome = s.info().getOrDefault("outcome", "completed");
        counts.merge(outcome, 1L, Long::sum);
        temperature.add(s.info().get("temperature"), 1);
        pressure.add(s.info().get("pressure"), dev.penstock.atoms.integrate.Units.BAR_PER_EV_PER_A3);
        volume.add(s.info().get("volume"), 1);
        String drift = s.info().get("conserved_energy_drift");
        if (drift != null) {
            double d = Math.abs(Double.parseDouble(drift));
            if (d > worstDrift) {
                worstDrift = d;
                worstDriftRelative = d / Math.abs(Double.parseDouble(s.info().get("conserved_energy")));
                worstDriftId = s.id();
            }
        }
        if (outcome.equals("unconverged")) {
            unconvergedCount++;
            if (unconverged.size() < LISTED) {
                unconverged.add(s.id());
            }
        }
    }

    /// Systems that spent a step budget before their fmax.
    synchronized long unconverged() {
        return unconvergedCount;
    }

    /// `"outcomes: 3 converged, 1 unconverged (a relaxation spent its step budget first: system 7)"`.
    synchronized String line() {
        StringBuilder b = new StringBuilder("outcomes: ");
        counts.forEach((k, v) -> b.append(b.length() > 10 ? ", " : "").append(String.format("%,d", v)).append(' ').append(k));
        if (counts.isEmpty()) {
            b.append("no system written");
        }
        if (unconvergedCount > 0) {
            b.append(" (a relaxation spent its step budget before its fmax: system").append(unconvergedCount == 1 ? " " : "s ")
                    .append(String.join(", ", unconverged.stream().map(String::valueOf).toList()))
                    .append(unconvergedCount > unconverged.size() ? " … and " + (unconvergedCount - unconverged.size()) + " more" : "")
                    .append("; give more steps, or steps alone for a budget only)");
        }
        if (temperature.count > 0) {
            b.append(String.format(java.util.Locale.ROOT, "; temperature %.1f K mean (%.1f–%.1f)", temperature.mean(), temperature.min,
                    temperature.max));
        }
        if (pressure.count > 0) {
            b.append(String.format(java.util.Locale.ROOT, "; pressure %.4g bar mean (%.4g–%.4g), volume %.6g Å³ mean", pressure.mean(),
                    pressure.min, pressure.max, volume.mean()));
        }
        if (worstDrift >= 0) {
            b.append(String.format(java.util.Locale.ROOT, "; largest conserved-energy drift %.2e eV (%.1e of it, system %d)", worstDrift,
                    worstDriftRelative, worstDriftId));
        }
        return b.toString();
    }

    /// For the JSON summary: after dynamics `"temperature_k": {"systems", "mean", "min", "max"}`
    /// (and for periodic systems `"pressure_bar"` and `"volume_a3"` alike), after `nvt`, `npt`,
    /// `nph` `"conserved_energy_drift": {"largest_ev", "relative", "system"}`, then
    /// `"outcomes": {"converged": 3, …}, "unconverged_ids": […]` (the summary's last keys).
    synchronized String json() {
        StringBuilder b = new StringBuilder();
        temperature.json(b, "temperature_k");
        pressure.json(b, "pressure_bar");
        volume.json(b, "volume_a3");
        if (worstDrift >= 0) {
            b.append(String.format(java.util.Locale.ROOT, "\"conserved_energy_drift\": {\"largest_ev\": %s, \"relative\": %s, "
                    + "\"system\": %d}, ", worstDrift, worstDriftRelative, worstDriftId));
        }
        b.append("\"outcomes\": {");
        boolean first = true;
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            b.append(first ? "" : ", ").append(JsonFigures.quote(e.getKey())).append(": ").append(e.getValue());
            first = false;
        }
        return b.append("}, \"unconverged_ids\": ").append(unconverged).toString();
    }

    /// Count, sum, least and largest of one info number over the written systems.
    private static final class Range {
        long count;
        double sum;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;

        /// Adds `value` (an info string; null: none) times `scale`.
        void add(String value, double scale) {
            if (value != null) {
                double x = Double.parseDouble(value) * scale;
                count++;
                sum += x;
                min = Math.min(min, x);
                max = Math.max(max, x);
            }
        }

        double mean() {
            return sum / count;
        }

        /// `"key": {"systems", "mean", "min", "max"}, ` when there is any.
        void json(StringBuilder b, String key) {
            if (count > 0) {
                b.append(String.format(java.util.Locale.ROOT, "\"%s\": {\"systems\": %d, \"mean\": %s, \"min\": %s, \"max\": %s}, ", key,
                        count, mean(), min, max));
            }
        }
    }

    /// `sink`, counting each system it takes.
    Sink<AtomicSystem> counting(Sink<AtomicSystem> sink) {
        return new Sink<>() {
            @Override
            public boolean offer(AtomicSystem s) throws Exception {
                boolean taken = sink.offer(s);
                if (taken) {
                    add(s);
                }
                return taken;
            }

            @Override
            public String name() {
                return sink.name();
            }

            @Override
            public long held() {
                return sink.held();
            }

            @Override
            public void awaitRoom(long nanos) throws InterruptedException {
                sink.awaitRoom(nanos);
            }

            @Override
            public void commit() throws Exception {
                sink.commit();
            }

            @Override
            public void close() throws Exception {
                sink.close();
            }
        };
    }
}
