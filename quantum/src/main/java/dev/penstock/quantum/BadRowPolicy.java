package dev.penstock.quantum;

import java.util.Locale;

/// What to do with a row that breaks its encoding's rule.
public enum BadRowPolicy {
    /// Stop at the first bad row with an `EncodingException` naming it (the default).
    FAIL,
    /// Leave the row out, count and list it, and write every good row, in order.
    SKIP;

    /// Parses `fail` or `skip`; fails naming the value and the choices.
    public static BadRowPolicy parse(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "fail" -> FAIL;
            case "skip" -> SKIP;
            default -> throw new IllegalArgumentException("unknown bad-row policy '" + s + "'; expected 'fail' or 'skip'");
        };
    }
}
