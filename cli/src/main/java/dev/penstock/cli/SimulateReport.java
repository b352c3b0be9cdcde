package dev.penstock.cli;

import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Event;
import dev.penstock.stage.Summary;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/// What `penstock simulate` says when a local run has ended: the table of stages and totals, or
/// (`--json`) the same figures as one JSON object.
///
/// @param input       INPUT
/// @param out         OUT
/// @param quarantined `OUT.quarantined.xyz`
record SimulateReport(Path input, Path out, Path quarantined) {
    /// The run's summary as one JSON object: the same figures as the table (`--json`).
    String json(Summary<AtomicSystem> s, List<AtomicSystem> systems, Outcomes outcomes) {
        double wall = s.wall().toNanos() / 1e9;
        long atomSteps = 0;
        StringBuilder stageList = new StringBuilder();
        for (Summary.StageReport r : s.stages()) {
            atomSteps += r.sampleSteps()[Systems.ATOMS];
            StringBuilder graduated = new StringBuilder();
            for (long g : r.graduated()) {
                graduated.append(graduated.isEmpty() ? "" : ", ").append(g);
            }
            stageList.append(stageList.isEmpty() ? "" : ", ").append("{\"name\": ").append(JsonFigures.quote(r.name()))
                    .append(", \"steps\": ").append(r.steps()).append(", \"graduated\": [").append(graduated).append("]")
                    .append(", \"atom_steps\": ").append(r.sampleSteps()[Systems.ATOMS])
                    .append(", \"occupancy\": ").append(JsonFigures.number(r.meanOccupancy(Systems.ATOMS)))
                    .append(", \"wait_in_s\": ").append(JsonFigures.number(r.waitInNs() / 1e9))
                    .append(", \"wait_out_s\": ").append(JsonFigures.number(r.waitOutNs() / 1e9)).append('}');
        }
        StringBuilder diagnoses = new StringBuilder();
        for (Event<AtomicSystem> q : s.quarantined()) {
            diagnoses.append(diagnoses.isEmpty() ? "" : ", ").append(JsonFigures.quote(q.diagnosis()));
        }
        return "{\"input\": " + JsonFigures.quote(input.toString()) + ", \"systems\": " + systems.size() + ", \"atoms\": "
                + systems.stream().mapToLong(AtomicSystem::atoms).sum() + ", \"finished\": " + s.delivered() + ", \"quarantined\": "
                + s.quarantined().size() + ", \"wall_s\": " + JsonFigures.number(wall) + ", \"atom_steps_per_s\": "
                + JsonFigures.number(atomSteps / wall) + ", \"out\": " + JsonFigures.quote(out.toString()) + ", \"quarantined_out\": "
                + (s.quarantined().isEmpty() ? "null" : JsonFigures.quote(quarantined.toString())) + ", \"stages\": [" + stageList
                + "], \"diagnoses\": [" + diagnoses + "], " + outcomes.json() + "}";
    }

    /// The table: per stage steps, graduations, atom-steps, occupancy and waits; the quarantined
    /// systems' diagnoses; the totals.
    void print(PrintStream o, Summary<AtomicSystem> s, int systems) {
        double wall = s.wall().toNanos() / 1e9;
        long atomSteps = 0;
        o.printf(Locale.ROOT, "%-28s %8s %10s %10s %9s %9s %9s%n", "stage", "steps", "graduated", "atom-steps", "occupancy", "wait-in", "wait-out");
        for (Summary.StageReport r : s.stages()) {
            atomSteps += r.sampleSteps()[Systems.ATOMS];
            o.printf(Locale.ROOT, "%-28s %8d %10s %10.3g %8.0f%% %8.2fs %8.2fs%n", r.name(), r.steps(), java.util.Arrays.toString(r.graduated()),
                    (double) r.sampleSteps()[Systems.ATOMS], 100 * r.meanOccupancy(Systems.ATOMS), r.waitInNs() / 1e9, r.waitOutNs() / 1e9);
        }
        for (Event<AtomicSystem> q : s.quarantined()) {
            o.println("quarantined: " + q.diagnosis());
        }
        if (!s.trace().isEmpty()) {
            s.trace().forEach(o::println);
        }
        o.printf(Locale.ROOT, "%,d of %,d systems finished in %.2f s (%,d quarantined); %.3g atom-steps/s; written to %s%n", s.delivered(),
                systems, wall, s.quarantined().size(), atomSteps / wall, out);
    }
}
