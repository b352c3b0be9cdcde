#!/usr/bin/python3
"""PyTorch peer of `bench gpu`'s kernel-only figure: 16-qubit amplitude encoding of 256 float64
rows already on the GPU (x / ||x|| per row, cast to complex128), timed with CUDA events over 20
repetitions after a warm-up. Prints `torch_encode16_kernel_vectors_per_s: V` (or says why not)."""
import sys

try:
    import torch
except ImportError:
    print("torch_encode16_kernel_vectors_per_s: n/a (PyTorch is not installed)")
    sys.exit(0)
if not torch.cuda.is_available():
    print("torch_encode16_kernel_vectors_per_s: n/a (no CUDA device for PyTorch)")
    sys.exit(0)

rows, size, reps = 256, 1 << 16, 20
x = torch.rand(rows, size, dtype=torch.float64, device="cuda") + 1.0


def encode(v):
    return (v / torch.linalg.norm(v, dim=1, keepdim=True)).to(torch.complex128)


encode(x)
torch.cuda.synchronize()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(reps):
    encode(x)
end.record()
torch.cuda.synchronize()
seconds = start.elapsed_time(end) / 1000.0
print("torch_encode16_kernel_vectors_per_s: %.0f" % (rows * reps / seconds))
