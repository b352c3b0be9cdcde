/// Datasets, samplers, transforms and the `DataLoader` with one-batch lookahead.
package dev.penstock.data;
