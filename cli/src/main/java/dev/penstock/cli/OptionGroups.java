package dev.penstock.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/// A command whose help lists its options in groups under headings, required first in each: an
/// option's `order` picks its group (`order / 100`, 1-based into `optionGroups()`), the rest of
/// the order its place; options without an order (`--help`, `--version`) come last, as `General`.
interface OptionGroups {
    /// The groups' headings, in order.
    List<String> optionGroups();

    /// Replaces the option list of `cl`'s help with the grouped one, when its command has groups.
    static void install(CommandLine cl) {
        if (!(cl.getCommand() instanceof OptionGroups groups)) {
            return;
        }
        List<String> headings = groups.optionGroups();
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, help -> render(help, headings));
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST_HEADING, help -> "");
    }

    private static String render(CommandLine.Help help, List<String> headings) {
        Map<Integer, List<OptionSpec>> byGroup = new TreeMap<>();
        for (OptionSpec o : help.commandSpec().options()) {
            if (o.hidden()) {
                continue;
            }
            int g = o.order() < 100 ? Integer.MAX_VALUE : o.order() / 100;
            byGroup.computeIfAbsent(g, k -> new ArrayList<>()).add(o);
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<Integer, List<OptionSpec>> e : byGroup.entrySet()) {
            int g = e.getKey();
            String heading = g == Integer.MAX_VALUE ? "General" : g - 1 < headings.size() ? headings.get(g - 1) : "Other";
            List<OptionSpec> options = new ArrayList<>();
            for (OptionSpec o : e.getValue()) { // a required option says so (a copy: the help's only)
                if (o.required()) {
                    String[] d = o.description().clone();
                    d[0] = "(required) " + (d.length > 0 ? d[0] : "");
                    options.add(o.toBuilder().description(d).build());
                } else {
                    options.add(o);
                }
            }
            options.sort(Comparator.comparing((OptionSpec o) -> !o.required()).thenComparingInt(OptionSpec::order));
            out.append("\n").append(heading).append(":\n");
            out.append(help.optionListExcludingGroups(options, help.createDefaultLayout(), null, help.parameterLabelRenderer()));
        }
        return out.toString();
    }
}
