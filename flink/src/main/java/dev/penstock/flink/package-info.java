/// Stage pipelines as Apache Flink DataStream jobs: a FLIP-27 source of samples split by id
/// ranges, one operator per chained stage stepping its active batch from the task's mailbox
/// (checkpointed with every sample's motion state), credit-based backpressure between stages,
/// and an exactly-once file sink whose files appear when a checkpoint completes.
package dev.penstock.flink;
