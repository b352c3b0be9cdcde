package dev.penstock.cuda;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;

/// The encodings of docs/definitions.md as CUDA kernels (`cuda/src/main/cuda/encode.cu`, shipped as
/// PTX and JIT-compiled by the driver when the module is loaded). Rows must have been validated
/// on the host (`dev.penstock.quantum.Rules`): these are the arithmetic only.
///
/// Input `[rows, stride]` f64 or f32 device block; output `[rows, 2^n]` c128 or c64 device block
/// (f32 input gives c64 only).
public final class EncodeKernels {
    /// The PTX resource.
    public static final String PTX = "/dev/penstock/cuda/encode.ptx";
    private static final int THREADS = 256;

    private final KernelModule module;

    /// Loads the kernels onto `device`.
    public EncodeKernels(CudaDevice device) {
        this.module = new KernelModule(device, PTX);
    }

    /// The PTX text from the class path.
    public static byte[] ptx() {
        return KernelModule.ptx(PTX);
    }

    CudaFunction function(String name) {
        return module.function(name);
    }

    private static String suffix(Block in, Block out) {
        if (in.dtype() == DType.F64 && out.dtype() == DType.C128) {
            return "f64_c128";
        }
        if (in.dtype() == DType.F32 && out.dtype() == DType.C64) {
            return "f32_c64";
        }
        if (in.dtype() == DType.F64 && out.dtype() == DType.C64) {
            return "f64_c64";
        }
        throw new IllegalArgumentException("no kernel for " + in.dtype() + " rows to " + out.dtype() + " states");
    }

    /// Enqueues the encoding of `rows` rows of `in` (row length `len`, row stride `in.shape(1)`)
    /// into `out` (`[rows, 2^n]`) on `stream`; `encoding` is amplitude, angle, basis, phase, iqp-z
    /// or iqp.
    public void encode(CudaStream stream, String encoding, Block in, int len, int n, Block out, int rows) {
        if (out.shape(1) != 1L << n || out.shape(0) < rows || in.shape(0) < rows) {
            throw new IllegalArgumentException("encode " + encoding + ": " + rows + " rows of " + n + " qubits do not fit " + in + " -> " + out);
        }
        String sfx = suffix(in, out);
        long stride = in.shape(1);
        long size = 1L << n;
        int gridX = (int) ((size + THREADS - 1) / THREADS);
        switch (encoding) {
            case "amplitude" -> {
                // one block per row: long rows get 1,024 threads, so that a chunk of a few dozen
                // rows still fills the SMs it lands on (256-thread blocks left them a quarter full)
                int threads = len >= 8192 ? 1024 : THREADS;
                stream.launchKernel(function("amplitude_" + sfx), rows, 1, threads, threads * 16, in, stride, len, n, out);
            }
            case "angle", "basis", "phase" -> stream.launchKernel(function(encoding + "_" + sfx), gridX, rows, THREADS, 0, in, stride, n, out);
            case "iqp", "iqp-z" -> {
                stream.launchKernel(function("iqp_phases_" + sfx), gridX, rows, THREADS, 0, in, stride, n, encoding.equals("iqp") ? 1 : 0, out);
                String butterfly = out.dtype() == DType.C128 ? "butterfly_c128" : "butterfly_c64";
                int pairs = (int) ((size / 2 + THREADS - 1) / THREADS);
                for (long h = 1; h < size; h <<= 1) {
                    stream.launchKernel(function(butterfly), Math.max(1, pairs), rows, THREADS, 0, n, h, out);
                }
            }
            default -> throw new IllegalArgumentException("unknown encoding '" + encoding + "'");
        }
    }

    /// Enqueues the transfer benchmark's kernel: every 8-byte word of `data` added into `sum[0]`.
    public void readAll(CudaStream stream, Block data, Block sum) {
        long words = data.byteSize() / 8;
        stream.launchKernel(function("read_all"), 1024, 1, THREADS, 0, data, words, sum);
    }
}
