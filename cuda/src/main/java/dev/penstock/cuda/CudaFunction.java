package dev.penstock.cuda;

import java.lang.foreign.MemorySegment;

/// A kernel of a loaded module.
///
/// @param name   its name in the module
/// @param handle the driver's `CUfunction`
public record CudaFunction(String name, MemorySegment handle) {
}
