#!/usr/bin/python3
"""NumPy amplitude encoding, the peer of `penstock bench encode` (docs/workloads.md `encode`).

Two forms, single thread, float64 rows -> complex128 states, B=4096 x L=1024 (10 qubits) and
B=64 x L=65536 (16 qubits):

  best   as a NumPy expert writes it: output, norms allocated once and reused; sum of squares by
         einsum, sqrt in place, divide straight into the real view of a zeroed complex128 buffer
         (the imaginary half stays zero) -- no temporaries per call
  naive  (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.complex128): three fresh arrays
         per call

Both get six warm-up calls, as Penstock's own measurement does, then the median of --repeat.
Where PyTorch is installed (python3-torch), also PyTorch on the CPU, one thread, into
preallocated buffers: torch.linalg.vector_norm(..., out=n) then torch.div(x, n, out=real view of
a zeroed complex128 tensor) (torch_vectors_per_s_<q>).
Prints `name: value` lines last: numpy_vectors_per_s_<q> is the best NumPy form.

Run: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 benchmarks/peers/encode_numpy.py [--repeat 5]
"""
import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

WARMUP = 6


def naive(x):
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.complex128)


class Best:
    """Buffers allocated once; each call writes the states into the same output."""

    def __init__(self, rows, length):
        self.out = np.zeros((rows, length), dtype=np.complex128)
        self.real = self.out.real  # a strided view: divide writes the real parts in place
        self.norm = np.empty(rows)

    def __call__(self, x):
        np.einsum("ij,ij->i", x, x, out=self.norm)
        np.sqrt(self.norm, out=self.norm)
        np.divide(x, self.norm[:, None], out=self.real)
        return self.out


class Torch:
    """PyTorch CPU, one thread, buffers allocated once (None when torch is not installed)."""

    def __init__(self, rows, length):
        import torch
        torch.set_num_threads(1)
        self.torch = torch
        self.out = torch.zeros((rows, length), dtype=torch.complex128)
        self.real = torch.view_as_real(self.out)[..., 0]
        self.norm = torch.empty((rows, 1), dtype=torch.float64)

    def __call__(self, x):
        t = self.torch
        t.linalg.vector_norm(x, dim=1, keepdim=True, out=self.norm)
        t.div(x, self.norm, out=self.real)
        return self.out


def torch_available():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


def median_rate(fn, x, repeat):
    for _ in range(WARMUP):
        fn(x)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - t0)
    times.sort()
    return x.shape[0] / times[len(times) // 2]


def check(x):
    a, b = naive(x), Best(*x.shape)(x)
    assert np.allclose(a, b, rtol=0, atol=1e-15), "the best form must give the naive form's states"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    rng = np.random.default_rng(7)
    for rows, length, q in [(4096, 1024, "10q"), (64, 65536, "16q")]:
        x = rng.uniform(-1, 1, size=(rows, length))
        check(x)
        best = median_rate(Best(rows, length), x, a.repeat)
        slow = median_rate(naive, x, a.repeat)
        print(f"numpy_vectors_per_s_{q}: {best:.1f}")
        print(f"numpy_naive_vectors_per_s_{q}: {slow:.1f}")
        if torch_available():
            import torch
            xt = torch.from_numpy(x)
            enc = Torch(rows, length)
            assert np.allclose(enc(xt).numpy(), naive(x), rtol=0, atol=1e-15), "torch must give the same states"
            print(f"torch_vectors_per_s_{q}: {median_rate(enc, xt, a.repeat):.1f}")


if __name__ == "__main__":
    main()
