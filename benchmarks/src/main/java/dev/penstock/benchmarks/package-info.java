/// The standard workloads of docs/workloads.md and the JMH benchmarks, each measuring its baseline
/// or peer in the same run.
package dev.penstock.benchmarks;
