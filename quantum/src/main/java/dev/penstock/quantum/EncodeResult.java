package dev.penstock.quantum;

import java.util.List;

/// What one batch encode did.
///
/// @param rowsRead     input rows looked at
/// @param rowsWritten  output rows written (the good rows, in input order)
/// @param skipped      rows left out under `BadRowPolicy.SKIP`, with the rule each broke
public record EncodeResult(long rowsRead, long rowsWritten, List<EncodingException> skipped) {
}
