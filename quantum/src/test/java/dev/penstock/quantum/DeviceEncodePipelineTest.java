package dev.penstock.quantum;

import dev.penstock.device.CpuDevice;

/// Every `EncodePipelineTest` scenario through `DeviceEncodePipeline` — rows checked on the
/// host, the encoding enqueued by a `DeviceEncoder`, states copied back — on `CpuDevice` with
/// the CPU encoder as the device kernel: the device path's own logic (compaction of good rows,
/// fail-fast after the rows before, ordering, buffers returned) tested without a GPU.
class DeviceEncodePipelineTest extends EncodePipelineTest {
    @Override
    EncodeSummary run(CpuDevice device, RowSource source, RowSink sink, EncodePipeline.Config cfg) throws Exception {
        return DeviceEncodePipeline.run(device, DeviceEncoder.cpu(Encoder.of(cfg.encoding(), cfg.qubits(), false)), null, source, sink, cfg);
    }
}
