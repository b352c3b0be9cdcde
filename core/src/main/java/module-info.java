/// Penstock's engine: off-heap blocks, devices with CUDA stream semantics, reproducible seeds,
/// the prefetch pump and the data loader. It depends on the JDK alone.
module dev.penstock.core {
    requires jdk.jfr;

    exports dev.penstock.memory;
    exports dev.penstock.device;
    exports dev.penstock.random;
    exports dev.penstock.pump;
    exports dev.penstock.data;
    exports dev.penstock.observe;
    exports dev.penstock.transfer;
    exports dev.penstock.stage;
    exports dev.penstock.io;
}
