#!/usr/bin/python3
"""PyTorch DataLoader on the `loader` workload of docs/workloads.md (the peer of `penstock bench loader`).

One DataLoader per worker count is kept across epochs (persistent workers), one warm-up epoch,
then --repeat measured epochs (median reported). Each sample: sleep 2 ms, fill 65,536 float32 x_j = sin(j * 1e-3 * (i mod 997 + 1) + 2), normalise
to (x - mean) / std. Batch 32, default collate. The consumer's model step is a float64 matrix
product repeated to take --step-ms, calibrated at start. Prints `name: value` lines last.

Run: /usr/bin/python3 benchmarks/peers/loader_torch.py [--samples 2000] [--workers 1,2,4,8,16,32] [--repeat 3]
"""
import argparse
import statistics
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

FEATURES = 65536


class Workload(Dataset):
    def __init__(self, n):
        self.n = n
        self.j = np.arange(FEATURES, dtype=np.float64)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(0.002)
        x = np.sin(self.j * (1e-3 * (i % 997 + 1)) + 2).astype(np.float32)
        x = (x - x.mean()) / x.std()
        return torch.from_numpy(x)


class Step:
    def __init__(self, target_s):
        self.a = torch.rand(64, 64, dtype=torch.float64)
        self.b = torch.rand(64, 64, dtype=torch.float64)
        for _ in range(200):
            self.a @ self.b
        best = min(self._time(10) for _ in range(15)) / 10
        self.reps = max(1, round(target_s / best))
        self.sink = 0.0

    def _time(self, n):
        t0 = time.perf_counter()
        for _ in range(n):
            self.a @ self.b
        return time.perf_counter() - t0

    def __call__(self, batch):
        c = None
        for _ in range(self.reps):
            c = self.a @ self.b
        self.sink += float(c[0, 0]) + float(batch[:, 0].sum())


def epoch(loader, step):
    t0 = time.perf_counter()
    wait = 0.0
    it = iter(loader)
    while True:
        w0 = time.perf_counter()
        try:
            batch = next(it)
        except StopIteration:
            break
        wait += time.perf_counter() - w0
        step(batch)
    wall = time.perf_counter() - t0
    return wall, wait / wall


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--samples", type=int, default=2000)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--workers", default="1,2,4,8,16,32")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--step-ms", type=float, default=5.0)
    a = p.parse_args()
    torch.set_num_threads(1)
    step = Step(a.step_ms / 1e3)
    best = 0.0
    best_w = None
    for w in [int(x) for x in a.workers.split(",")]:
        # As Penstock's side: one loader kept across epochs (persistent workers, so no
        # re-spawn per epoch), one warm-up epoch, then the measured ones.
        loader = DataLoader(Workload(a.samples), batch_size=a.batch_size, num_workers=w,
                            persistent_workers=w > 0)
        epoch(loader, step)
        runs = [epoch(loader, step) for _ in range(a.repeat)]
        del loader
        walls = sorted(r[0] for r in runs)
        med = statistics.median_low(walls)
        wait = [r[1] for r in runs if r[0] == med][0]
        sps = a.samples / med
        print(f"torch workers={w} samples_per_s={sps:.0f} (min {a.samples / walls[-1]:.0f}, "
              f"max {a.samples / walls[0]:.0f}) exposed_wait={wait:.3f}", flush=True)
        print(f"torch_samples_per_s_w{w}: {sps:.1f}")
        print(f"torch_exposed_wait_fraction_w{w}: {wait:.3f}")
        if sps > best:
            best, best_w = sps, w
    print(f"torch_best_workers: {best_w}")
    print(f"torch_samples_per_s: {best:.1f}")


if __name__ == "__main__":
    main()
