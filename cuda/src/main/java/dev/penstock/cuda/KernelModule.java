package dev.penstock.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/// One PTX resource loaded onto a device, its kernels looked up by name (once each), with the
/// parameter sizes its PTX declares (`PtxEntries`), which `CudaStream.launchKernel` checks.
final class KernelModule {
    private final CudaDevice device;
    private final String resource;
    private final MemorySegment module;
    private final Map<String, CudaFunction> functions = new HashMap<>();
    private final Map<String, List<Integer>> entries;

    /// Loads `resource` (a class-path PTX) onto `device`.
    KernelModule(CudaDevice device, String resource) {
        this.device = device;
        this.resource = resource;
        byte[] ptx = ptx(resource);
        this.entries = PtxEntries.parse(new String(ptx, StandardCharsets.US_ASCII));
        device.enter();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment image = a.allocate(ptx.length + 1L);
            MemorySegment.copy(ptx, 0, image, ValueLayout.JAVA_BYTE, 0, ptx.length);
            this.module = device.driver().moduleLoadData(image); // NUL-terminated PTX text
        }
    }

    /// The PTX text of `resource` from the class path.
    static byte[] ptx(String resource) {
        try (InputStream in = KernelModule.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the CUDA kernels " + resource + " are missing from the class path (run scripts/build-kernels.sh)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /// The kernel `name`; fails naming the resource if its PTX has no such entry.
    CudaFunction function(String name) {
        synchronized (functions) {
            return functions.computeIfAbsent(name, n -> {
                device.enter();
                List<Integer> sizes = entries.get(n);
                if (sizes == null) {
                    throw new IllegalStateException("kernel " + n + " is not in " + resource + " (rebuild it with scripts/build-kernels.sh)");
                }
                return new CudaFunction(n, device.driver().moduleGetFunction(module, n), sizes);
            });
        }
    }
}
