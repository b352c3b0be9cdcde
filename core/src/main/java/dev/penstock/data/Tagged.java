package dev.penstock.data;

/// A sample of a `MultiDataset`, tagged with the dataset it came from.
///
/// @param dataset     position of the source dataset in the `MultiDataset`
/// @param localIndex  index of the sample within that dataset
/// @param value       the sample
public record Tagged<T>(int dataset, long localIndex, T value) {
}
