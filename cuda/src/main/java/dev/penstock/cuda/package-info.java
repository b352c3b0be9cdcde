/// A CUDA device for Penstock's engine through `java.lang.foreign` and the CUDA driver API:
/// `CudaDriver` (bindings, `probe()`), `CudaDevice`/`CudaStream`/`CudaEvent` (the engine's
/// `Device` contract), `PinnedBacking` (page-locked staging memory), `EncodeKernels` (the
/// encodings of docs/definitions.md, shipped as PTX and JIT-compiled by the driver).
///
/// Status: built and checked here without a GPU (the PTX by ptxas for sm_90, the bindings by
/// the compiler, the no-driver path by tests); the GPU-tagged tests and `scripts/gpu-check.sh`
/// have not yet run on a GPU.
package dev.penstock.cuda;
