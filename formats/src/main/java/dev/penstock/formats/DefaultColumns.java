package dev.penstock.formats;

import dev.penstock.io.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/// Which columns of a table (Parquet or Arrow) its rows are made of when the caller names none —
/// one rule for both:
///
/// 1. the table's list-of-numbers column, when it has exactly one (the flat columns beside it are
///    ids and labels); more than one is refused, naming them;
/// 2. else its flat floating-point columns, in schema order — integer columns (`id`, `label`)
///    are left out and named (`Choice.leftOut`);
/// 3. else its flat integer columns, in schema order (a table of integers only: basis indices).
///
/// A table with none of these is refused, naming its columns.
public final class DefaultColumns {
    /// What a top-level column holds, for the rule.
    public enum Kind {
        /// Flat float32 or float64 values.
        FLOAT,
        /// Flat integer values.
        INTEGER,
        /// A list (or fixed-size list) of numbers a row.
        LIST,
        /// Anything else (strings, nested records): never chosen.
        OTHER
    }

    /// The chosen columns (indices into the names given), whether they are the one list column,
    /// and the numeric columns left out.
    public record Choice(List<Integer> picked, boolean list, List<String> leftOut) {
    }

    private DefaultColumns() {
    }

    /// Chooses among `names` (top-level columns in schema order) of kinds `kinds`.
    ///
    /// @throws BadInputException naming `file` and the columns when none can be chosen
    public static Choice choose(Path file, List<String> names, List<Kind> kinds) {
        List<Integer> lists = indices(kinds, Kind.LIST);
        List<Integer> floats = indices(kinds, Kind.FLOAT);
        List<Integer> ints = indices(kinds, Kind.INTEGER);
        if (lists.size() > 1) {
            throw new BadInputException(file, file + ": " + lists.size() + " list columns (" + String.join(", ", pick(names, lists))
                    + "): name the one the rows are made of");
        }
        if (lists.size() == 1) {
            List<Integer> rest = new ArrayList<>(floats);
            rest.addAll(ints);
            rest.sort(null);
            return new Choice(lists, true, pick(names, rest));
        }
        if (!floats.isEmpty()) {
            return new Choice(floats, false, pick(names, ints));
        }
        if (!ints.isEmpty()) {
            return new Choice(ints, false, List.of());
        }
        List<String> all = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            all.add(names.get(i) + " " + kinds.get(i).name().toLowerCase(java.util.Locale.ROOT));
        }
        throw new BadInputException(file, file + ": no numeric column to read (flat float or integer columns, or one list of "
                + "numbers); columns are " + all);
    }

    private static List<Integer> indices(List<Kind> kinds, Kind kind) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < kinds.size(); i++) {
            if (kinds.get(i) == kind) {
                out.add(i);
            }
        }
        return out;
    }

    private static List<String> pick(List<String> names, List<Integer> at) {
        return at.stream().map(names::get).toList();
    }
}
