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
    // after dynamics: each written system's temperature; after nvt: the largest conserved-energy drift
    private long heated;
    private double temperatureSum;
    private double temperatureMin = Double.POSITIVE_INFINITY;
    private double temperatureMax = Double.NEGATIVE_INFINITY;
    private double worstDrift = -1;
    private double worstDriftRelative;
    private long worstDriftId;

    /// Counts `s`.
    synchronized void add(AtomicSystem s) {
        String outcome = s.info().getOrDefault("outcome", "completed");
        counts.merge(outcome, 1L, Long::sum);
        String t = s.info().get("temperature");
        if (t != null) {
            double k = Double.parseDouble(t);
            heated++;
            temperatureSum += k;
            temperatureMin = Math.min(temperatureMin, k);
            temperatureMax = Math.max(temperatureMax, k);
        }
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
        if (heated > 0) {
            b.append(String.format(java.util.Locale.ROOT, "; temperature %.1f K mean (%.1f–%.1f)", temperatureSum / heated, temperatureMin,
                    temperatureMax));
        }
        if (worstDrift >= 0) {
            b.append(String.format(java.util.Locale.ROOT, "; largest conserved-energy drift %.2e eV (%.1e of it, system %d)", worstDrift,
                    worstDriftRelative, worstDriftId));
        }
        return b.toString();
    }

    /// For the JSON summary: after dynamics `"temperature_k": {"systems", "mean", "min", "max"}`,
    /// after `nvt` `"conserved_energy_drift": {"largest_ev", "relative", "system"}`, then
    /// `"outcomes": {"converged": 3, …}, "unconverged_ids": […]` (the summary's last keys).
    synchronized String json() {
        StringBuilder b = new StringBuilder();
        if (heated > 0) {
            b.append(String.format(java.util.Locale.ROOT, "\"temperature_k\": {\"systems\": %d, \"mean\": %s, \"min\": %s, \"max\": %s}, ",
                    heated, temperatureSum / heated, temperatureMin, temperatureMax));
        }
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
