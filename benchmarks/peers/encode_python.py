#!/usr/bin/python3
"""`penstock.encode` called from Python against NumPy at its best, in the same process
(`penstock bench encode --python`).

Workload (docs/workloads.md `encode`): amplitude encoding of a 4096 x 1024 float64 array into
complex128 states (10 qubits). NumPy at its best: `encode_numpy.Best` (buffers allocated once,
einsum, sqrt in place, divide into the real view of a zeroed complex128 output), one thread.
Penstock: `penstock.encode(x, qubits=10)` from this interpreter: the array read in place, the
rows split over every core, each encoded by the kernels `penstock encode` runs, the states a
NumPy array the JVM writes the states into, allocated per call (`np.empty`) — and, as NumPy's
best reuses its output, into one reused array (`out=`). Rounds alternate the two (six warm-up
calls each first); figures are medians. The bridge's cost per call: `penstock.encode` of a 64-row
array, whose encoding alone takes microseconds.

Prints `name: value` lines.

Run: ./penstock bench encode --python, or /usr/bin/python3 benchmarks/peers/encode_python.py [--rounds 7]
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))  # the package of this checkout
from encode_numpy import Best  # noqa: E402

import penstock  # noqa: E402


def timed(fn, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--rows", type=int, default=4096)
    args = ap.parse_args()
    rng = np.random.default_rng(42)
    x = rng.normal(size=(args.rows, 1024))
    small = x[:64].copy()
    best = Best(args.rows, 1024)
    check = penstock.encode(x, qubits=10)
    np.testing.assert_allclose(check, best(x), rtol=0, atol=1e-15)
    for _ in range(6):
        penstock.encode(x, qubits=10)
        best(x)
        penstock.encode(small, qubits=10)
    out = np.empty((args.rows, 1024), dtype=np.complex128)
    ours, reused, theirs, bridge = [], [], [], []
    for r in range(args.rounds):
        ours.append(timed(lambda: penstock.encode(x, qubits=10), 3))
        reused.append(timed(lambda: penstock.encode(x, qubits=10, out=out), 3))
        theirs.append(timed(lambda: best(x), 3))
        bridge.append(timed(lambda: penstock.encode(small, qubits=10), 20))
        print("round %d: penstock %.1f ms (into a reused out= %.1f ms), numpy %.1f ms, 64 rows %.3f ms"
              % (r, ours[-1] * 1e3, reused[-1] * 1e3, theirs[-1] * 1e3, bridge[-1] * 1e3), file=sys.stderr)
    p, q, n, b = statistics.median(ours), statistics.median(reused), statistics.median(theirs), statistics.median(bridge)
    print("python_penstock_vectors_per_s: %.0f" % (args.rows / p))
    print("python_penstock_out_reused_vectors_per_s: %.0f" % (args.rows / q))
    print("python_numpy_best_vectors_per_s: %.0f" % (args.rows / n))
    print("ratio_python_penstock_vs_numpy_best: %.3f" % (n / p))
    print("ratio_python_penstock_out_reused_vs_numpy_best: %.3f" % (n / q))
    print("python_call_64_rows_ms: %.3f" % (b * 1e3))
    print("python_rounds: %d" % args.rounds)


if __name__ == "__main__":
    main()
