package dev.penstock.quantum;

/// A row broke an encoding's rule; the message names the row (its global index in the input)
/// and the rule.
public final class EncodingException extends RuntimeException {
    private final long row;
    private final String rule;

    /// Row `row` broke `rule`.
    public EncodingException(long row, String rule) {
        super("row " + row + ": " + rule);
        this.row = row;
        this.rule = rule;
    }

    /// Global index of the row in the input.
    public long row() {
        return row;
    }

    /// The rule broken, in words.
    public String rule() {
        return rule;
    }
}
