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
/// @param slotWaits     chunks that found no free staging buffer and waited for one (starvation)
/// @param overlapNs     copy time that ran while a kernel ran (copy/compute overlap)
/// @param firstKernelNs time of chunk 0's kernel (in a fresh JVM mostly the JIT compiling it), 0
///                      without chunks
public record TransferStats(long bytes, long chunks, long wallNs, long readNs, long slotWaitNs, long copyNs, long kernelNs, long slotWaits,
                            long overlapNs, long firstKernelNs) {


    /// The share of the copy time hidden behind kernels, in percent (100 when there was no copy).
    public double overlapPercent() {
        return copyNs == 0 ? 100 : 100.0 * overlapNs / copyNs;
    }

    /// Input bytes per second of wall time, in GB/s (10^9 bytes).
    public double gigabytesPerSecond() {
        return wallNs == 0 ? 0 : (double) bytes / wallNs;
    }
}
