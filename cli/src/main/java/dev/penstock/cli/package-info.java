/// The `penstock` command: benchmarks now, the main jobs as later capabilities land.
package dev.penstock.cli;
