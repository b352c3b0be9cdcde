package dev.penstock.quantum;

import dev.penstock.transfer.TransferStats;
import java.util.List;

/// What an `EncodePipeline` run did.
///
/// @param rowsRead     input rows
/// @param rowsWritten  states written (the good rows, in order)
/// @param skipped      rows left out under `SKIP`, each naming its row and rule
/// @param wallNs       wall time
/// @param ioWaitNs     time the transfer side waited for the I/O threads' reads
/// @param transfer     the transfer engine's account (staging waits, copy and kernel time)
/// @param outputWaitNs time kernels waited for the writer to free a states buffer (included in
///                     the transfer's kernel time)
/// @param writeNs      time the writer spent writing states
public record EncodeSummary(long rowsRead, long rowsWritten, List<EncodingException> skipped, long wallNs, long ioWaitNs,
                            TransferStats transfer, long outputWaitNs, long writeNs) {

    /// Input rows per second of wall time.
    public double rowsPerSecond() {
        return wallNs == 0 ? 0 : rowsRead / (wallNs / 1e9);
    }
}
