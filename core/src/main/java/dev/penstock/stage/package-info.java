/// Stage pipelines: stages that step batches of samples, fused on one device (`Stage.fuse`, one
/// shared evaluation per step, samples routed by status) or chained on workers (`Stage.then`,
/// bounded buffers sized in the dimensions the sample type declares), with in-flight refill.
package dev.penstock.stage;
