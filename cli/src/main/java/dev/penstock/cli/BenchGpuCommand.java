package dev.penstock.cli;

import dev.penstock.cuda.CudaDriver;
import dev.penstock.cuda.GpuBench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/// `penstock bench gpu`: copy bandwidth, the transfer engine and 16-qubit amplitude encoding on
/// `cuda:0`. Without a usable GPU it says why and exits with 2.
@Command(name = "gpu", mixinStandardHelpOptions = true,
        description = "On an NVIDIA GPU: pinned vs pageable host-to-device bandwidth, the transfer engine, 16-qubit amplitude encoding.")
public final class BenchGpuCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Override
    public Integer call() throws Exception {
        CudaDriver.Probe p = CudaDriver.probe();
        if (!p.usable()) {
            System.err.println("penstock bench gpu: no usable GPU here: " + p.reason());
            return 2;
        }
        output.print(new GpuBench(output.progress()).run());
        return 0;
    }
}
