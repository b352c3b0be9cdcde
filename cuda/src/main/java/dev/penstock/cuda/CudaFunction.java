package dev.penstock.cuda;

import java.lang.foreign.MemorySegment;
import java.util.List;

/// A kernel of a loaded module.
///
/// @param name       its name in the module
/// @param handle     the driver's `CUfunction`
/// @param paramSizes the byte size of each parameter, as its PTX declares them
public record CudaFunction(String name, MemorySegment handle, List<Integer> paramSizes) {
}
