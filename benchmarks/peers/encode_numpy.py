#!/usr/bin/python3
"""NumPy amplitude encoding, the peer of `penstock bench encode` (BENCHMARKS.md `encode`).

x / np.linalg.norm(x, axis=1, keepdims=True) cast to complex128, single thread, on float64 rows:
B=4096 x L=1024 (10 qubits) and B=64 x L=65536 (16 qubits). Prints `name: value` lines last.

Run: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 benchmarks/peers/encode_numpy.py [--repeat 5]
"""
import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402


def encode(x):
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.complex128)


def bench(rows, length, repeat):
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, size=(rows, length))
    encode(x)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        encode(x)
        times.append(time.perf_counter() - t0)
    times.sort()
    return rows / times[len(times) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    v10 = bench(4096, 1024, a.repeat)
    v16 = bench(64, 65536, a.repeat)
    print(f"numpy_vectors_per_s_10q: {v10:.1f}")
    print(f"numpy_vectors_per_s_16q: {v16:.1f}")


if __name__ == "__main__":
    main()
