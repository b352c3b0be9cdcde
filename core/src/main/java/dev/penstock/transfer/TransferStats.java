package dev.penstock.transfer;

/// What one `TransferEngine.run` did and where its time went.
///
/// @param bytes         input bytes moved
/// @param chunks        chunks moved
/// @param wallNs        wall time of the run
/// @param readNs        time the host spent filling staging buffers
/// @param slotWaitNs    time the host waited for a staging slot to come back (backpressure)
/// @param copyNs        time the copy stream spent copying
/// @param kernelNs      time the compute stream spent in kernels
public record TransferStats(long bytes, long chunks, long wallNs, long readNs, long slotWaitNs, long copyNs, long kernelNs) {

    /// Input bytes per second of wall time, in GB/s (10^9 bytes).
    public double gigabytesPerSecond() {
        return wallNs == 0 ? 0 : (double) bytes / wallNs;
    }
}
