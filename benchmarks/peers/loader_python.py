#!/usr/bin/python3
"""`penstock.DataLoader` feeding a PyTorch training step, against `torch.utils.data.DataLoader` at
its best, in one process (`penstock bench loader --python`).

Workload: 2,000 `.npy` point clouds of 16,384 points × 4 float32 (256 KiB each, written once to
--dir), each sample 1,024 points drawn at random and normalised by a given mean and std per
feature; batch 32; the consumer trains a small MLP (4,096 → 256 → 64 → 1, Adam, real backward
pass, one torch thread) on every batch. Both loaders do the same work per sample: PyTorch's in
its worker processes (`np.load` with `mmap_mode="r"`, the 1,024 rows gathered, normalised;
`persistent_workers`, spawned — a worker forked from a process running a JVM can hang —, workers
swept 0, 1, 2, 4), Penstock's on the
JVM's I/O threads (`penstock.data.files(..., subsample=1024, mean, std)`, workers swept 2, 8, 32).
Each configuration: one warm-up epoch, then the median of --repeat epochs; rounds alternate the
two sides. Figures: samples/s, and the consumer's exposed wait (the share of the epoch spent
waiting for the next batch). Prints `name: value` lines last.

Run: ./penstock bench loader --python, or /usr/bin/python3 benchmarks/peers/loader_python.py [--repeat 3]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))  # the package of this checkout
import penstock  # noqa: E402

sys.path.insert(0, HERE)
from loader_torch import epoch  # noqa: E402  (one epoch, timing the consumer's waits: the same for both sides)

POINTS, FEATURES, PICK, BATCH = 16384, 4, 1024, 32
MEAN = np.array([0.0, 1.0, -1.0, 0.5], dtype=np.float32)
STD = np.array([1.0, 2.0, 0.5, 1.5], dtype=np.float32)


def write_files(folder, count):
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, "cloud%05d.npy" % k) for k in range(count)]
    rng = np.random.default_rng(0)
    for p in paths:
        if not os.path.exists(p):
            np.save(p, (rng.normal(size=(POINTS, FEATURES)) * STD + MEAN).astype(np.float32))
    return paths


class Clouds(Dataset):
    """The same sample as Penstock's: PICK points drawn with the sample's own generator, normalised."""

    def __init__(self, paths, seed):
        self.paths = paths
        self.seed = seed

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        x = np.load(self.paths[i], mmap_mode="r")
        rng = np.random.default_rng((self.seed, i))
        pick = rng.choice(POINTS, PICK, replace=False)
        return torch.from_numpy((x[pick] - MEAN) / STD)


def model():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(PICK * FEATURES, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64),
                            torch.nn.ReLU(), torch.nn.Linear(64, 1))
    return m, torch.optim.Adam(m.parameters(), lr=1e-3)


def trainer(m, opt):
    """The consumer's step: one training step of `m` on the batch."""
    def step(batch):
        loss = m(batch).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def measure(make, repeat):
    loader = make()
    samples = len(loader.dataset)
    step = trainer(*model())
    try:
        epoch(loader, step)  # warm-up
        runs = [epoch(loader, step) for _ in range(repeat)]
    finally:
        close = getattr(loader, "close", None)
        if close:
            close()
        del loader
    wall = statistics.median(r[0] for r in runs)
    wait = statistics.median(r[1] for r in runs)
    return samples / wall, wait


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="target/bench-loader-python")
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--torch-workers", default="0,1,2,4")
    ap.add_argument("--penstock-workers", default="2,8,32")
    args = ap.parse_args()
    torch.set_num_threads(1)  # the training step on one core; the loaders' work beside it
    paths = write_files(args.dir, args.samples)
    ds = penstock.data.files(paths, subsample=PICK, mean=MEAN, std=STD, dtype="float32")
    results = {"torch": {}, "penstock": {}}
    for r in range(args.rounds):
        for w in [int(v) for v in args.torch_workers.split(",")]:
            def make(w=w):
                # spawned workers: a child forked from a process running a JVM can hang when its
                # garbage collector finalizes a JPype object (persistent: spawned once per loader)
                return DataLoader(Clouds(paths, 0), batch_size=BATCH, shuffle=True, num_workers=w, persistent_workers=w > 0,
                                  multiprocessing_context="spawn" if w > 0 else None, generator=torch.Generator().manual_seed(0))
            rate, wait = measure(make, args.repeat)
            results["torch"].setdefault(w, []).append((rate, wait))
            print("round %d: torch %d workers: %.0f samples/s, waited %.0f%%" % (r, w, rate, 100 * wait), file=sys.stderr)
        for w in [int(v) for v in args.penstock_workers.split(",")]:
            rate, wait = measure(lambda w=w: penstock.DataLoader(ds, batch_size=BATCH, shuffle=True, seed=0, workers=w), args.repeat)
            results["penstock"].setdefault(w, []).append((rate, wait))
            print("round %d: penstock %d workers: %.0f samples/s, waited %.0f%%" % (r, w, rate, 100 * wait), file=sys.stderr)

    def best(side):
        w, runs = max(results[side].items(), key=lambda kv: statistics.median(x[0] for x in kv[1]))
        return w, statistics.median(x[0] for x in runs), statistics.median(x[1] for x in runs)

    tw, trate, twait = best("torch")
    pw, prate, pwait = best("penstock")
    print("python_loader_penstock_samples_per_s: %.0f" % prate)
    print("python_loader_penstock_workers: %d" % pw)
    print("python_loader_penstock_exposed_wait: %.3f" % pwait)
    print("python_loader_torch_samples_per_s: %.0f" % trate)
    print("python_loader_torch_workers: %d" % tw)
    print("python_loader_torch_exposed_wait: %.3f" % twait)
    print("ratio_python_loader_vs_torch: %.3f" % (prate / trate))


if __name__ == "__main__":
    main()
