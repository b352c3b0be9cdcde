package dev.penstock.observe;

/// Where one batch's time went.
///
/// @param epoch       epoch of the batch
/// @param batch       index of the batch within the epoch
/// @param waitNs      time the consumer waited inside the loader's `next()` for this batch
/// @param loadBusyNs  host-load busy time: the sum of `loadHost` durations of its samples
///                    (on I/O threads, overlapped with everything else)
/// @param prepNs      time its preparation ran on the preprocessing stream (-1 while unfinished)
public record BatchStall(int epoch, long batch, long waitNs, long loadBusyNs, long prepNs) {
}
