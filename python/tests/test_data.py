"""penstock.DataLoader over penstock.data datasets: the engine's contracts, from Python."""

import os
import time

import numpy as np
import pytest

import penstock
from conftest import need


def table(tmp_path, count=300, width=6, seed=0):
    x = np.random.default_rng(seed).normal(size=(count, width))
    x[:, 0] = np.arange(count)  # column 0 names the sample
    np.save(tmp_path / "t.npy", x)
    return x


def order(loader):
    return [int(v) for b in loader for v in np.asarray(b)[:, 0].tolist()]


def loader_threads():
    from java.lang import Thread
    return [str(t.getName()) for t in Thread.getAllStackTraces().keySet() if str(t.getName()).startswith("penstock-io-loader")]


def test_every_sample_once_an_epoch_in_an_order_of_seed_and_epoch_alone(tmp_path):
    table(tmp_path)
    ds = penstock.data.rows(tmp_path / "t.npy", dtype="float64")
    runs = []
    for workers in (1, 4, 16):
        with penstock.DataLoader(ds, batch_size=32, shuffle=True, seed=7, workers=workers, as_numpy=True) as dl:
            runs.append((order(dl), order(dl)))  # epochs 0 and 1
    assert sorted(runs[0][0]) == list(range(300))
    assert runs[0] == runs[1] == runs[2]
    assert runs[0][0] != runs[0][1]
    with penstock.DataLoader(ds, batch_size=32, shuffle=True, seed=7, as_numpy=True) as dl:
        dl.set_epoch(1)
        assert order(dl) == runs[0][1]
    with penstock.DataLoader(ds, batch_size=32, shuffle=False, drop_last=True, as_numpy=True) as dl:
        assert len(dl) == 9 and order(dl) == list(range(288))


def test_a_saved_state_resumes_mid_epoch_to_the_batches_of_an_uninterrupted_run(tmp_path):
    table(tmp_path)
    ds = penstock.data.rows(tmp_path / "t.npy")
    with penstock.DataLoader(ds, batch_size=20, shuffle=True, seed=3, workers=4, as_numpy=True) as dl:
        whole = [np.array(b) for b in dl]
    with penstock.DataLoader(ds, batch_size=20, shuffle=True, seed=3, workers=2, as_numpy=True) as dl:
        it = iter(dl)
        first = [np.array(next(it)) for _ in range(6)]
        state = dl.state_dict()
    assert state["batches_delivered"] == 6
    with penstock.DataLoader(ds, batch_size=20, shuffle=True, seed=3, workers=8, as_numpy=True) as dl:
        dl.load_state_dict(state)
        rest = [np.array(b) for b in dl]
    assert len(first) + len(rest) == len(whole)
    for a, b in zip(first + rest, whole):
        assert a.tobytes() == b.tobytes()


def test_transforms_run_on_the_io_threads_as_numpy_computes_them(tmp_path):
    x = table(tmp_path, width=5)
    mean = np.array([0, 1, 2, 3, 4.0])
    std = np.array([1, 2, 3, 4, 5.0])
    ds = penstock.data.rows(tmp_path / "t.npy", dtype="float32", mean=mean, std=std)
    with penstock.DataLoader(ds, batch_size=50, as_numpy=True) as dl:
        got = np.concatenate([np.array(b) for b in dl])
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, ((x - mean) / std).astype(np.float32))
    sub = penstock.data.rows(tmp_path / "t.npy", dtype="float64", subsample=3)
    a = [np.array(b) for b in penstock.DataLoader(sub, batch_size=10, seed=5, workers=1, as_numpy=True)]
    b = [np.array(b) for b in penstock.DataLoader(sub, batch_size=10, seed=5, workers=6, as_numpy=True)]
    assert a[0].shape == (10, 3) and all(np.array_equal(p, q) for p, q in zip(a, b))
    for r, row in enumerate(np.concatenate(a)):
        assert set(row.tolist()) <= set(x[r].tolist())


def test_point_clouds_of_any_size_subsampled_into_one_shape(tmp_path):
    rng = np.random.default_rng(2)
    paths = []
    for k in range(12):
        p = tmp_path / ("cloud%02d.npy" % k)
        np.save(p, rng.normal(size=(50 + 7 * k, 3)))
        paths.append(p)
    ds = penstock.data.files(tmp_path, subsample=32, dtype="float32")
    assert len(ds) == 12 and ds.shape == (32, 3)
    with penstock.DataLoader(ds, batch_size=4, shuffle=True, seed=1, workers=3, as_numpy=True) as dl:
        batches = [np.array(b) for b in dl]
    assert [b.shape for b in batches] == [(4, 32, 3)] * 3


def test_samples_of_several_shapes_come_as_lists_of_tensors(tmp_path):
    torch = need("torch")
    rng = np.random.default_rng(4)
    clouds = [rng.normal(size=(5 + 3 * k, 3)) for k in range(7)]
    for k, c in enumerate(clouds):
        np.save(tmp_path / ("c%d.npy" % k), c)
    ds = penstock.data.files(tmp_path, dtype="float64", mean=1.0, std=2.0)
    assert ds.shape == (None, 3)
    with penstock.DataLoader(ds, batch_size=3, shuffle=True, seed=9, workers=2) as dl:
        got = {}
        for batch in dl:
            assert isinstance(batch, list) and all(isinstance(t, torch.Tensor) for t in batch)
            for t in batch:
                got[t.shape[0]] = t.clone()
    assert sorted(got) == [c.shape[0] for c in clouds]
    for c in clouds:
        np.testing.assert_array_equal(got[c.shape[0]].numpy(), (c - 1.0) / 2.0)
    with pytest.raises(ValueError, match="one rank"):
        np.save(tmp_path / "flat.npy", np.zeros(4))
        penstock.data.files(tmp_path)


def test_a_folder_of_zarr_arrays_as_zarr_python_writes_them(tmp_path):
    zarr = need("zarr")
    from numcodecs import Blosc, Zstd
    rng = np.random.default_rng(6)
    clouds = {}
    for k in range(9):
        x = rng.normal(size=(40 + 11 * k, 4))
        kw = {} if k % 3 == 0 else {"compressor": Zstd(level=2)} if k % 3 == 1 else {"compressor": Blosc(cname="zstd", shuffle=Blosc.NOSHUFFLE)}
        z = zarr.open(str(tmp_path / ("p%d.zarr" % k)), mode="w", shape=x.shape, chunks=(16, 4), dtype="f8", **kw)
        z[...] = x
        clouds[k] = x
    ds = penstock.data.files(tmp_path, dtype="float64")
    assert len(ds) == 9 and ds.shape == (None, 4)
    with penstock.DataLoader(ds, batch_size=4, as_numpy=True) as dl:
        samples = [np.array(s) for batch in dl for s in batch]  # a copy: a batch is valid until the next
    for k, s in enumerate(samples):
        np.testing.assert_array_equal(s, clouds[k])
    sub = penstock.data.files([tmp_path / "p0.zarr", tmp_path / "p8.zarr"], subsample=20, dtype="float32")
    with penstock.DataLoader(sub, batch_size=2, seed=3, as_numpy=True) as dl:
        (batch,) = [np.array(b) for b in dl]  # a copy: the batch's memory is the loader's, freed when it closes
    assert batch.shape == (2, 20, 4)
    for got, k in zip(batch, (0, 8)):
        rows = {tuple(r) for r in clouds[k].astype(np.float32).tolist()}
        assert all(tuple(r) in rows for r in got.tolist())
    z = zarr.open(str(tmp_path / "bits.zarr"), mode="w", shape=(100, 4), dtype="f8", compressor=Blosc(shuffle=Blosc.BITSHUFFLE))
    z[...] = 1
    with pytest.raises(ValueError, match="bits.zarr: Blosc with bit shuffle"):
        penstock.data.files([tmp_path / "bits.zarr"])


def test_a_sample_that_cannot_be_loaded_raises_at_its_batch_naming_it(tmp_path):
    paths = []
    for k in range(6):
        p = tmp_path / ("s%d.npy" % k)
        np.save(p, np.full((4, 2), float(k)))
        paths.append(p)
    ds = penstock.data.files(paths)
    with open(paths[4], "r+b") as f:  # damaged after the dataset was made
        f.truncate(20)
    seen = 0
    with pytest.raises(penstock.LoaderError, match="s4.npy"):
        for _ in penstock.DataLoader(ds, batch_size=2, as_numpy=True):
            seen += 1
    assert seen == 2


def test_leaving_early_and_closing_leave_no_io_thread(tmp_path):
    table(tmp_path, count=2000)
    ds = penstock.data.rows(tmp_path / "t.npy")
    dl = penstock.DataLoader(ds, batch_size=10, workers=8, as_numpy=True)
    for i, _ in enumerate(dl):
        if i == 3:
            break
    dl.close()
    deadline = time.time() + 20
    while loader_threads() and time.time() < deadline:
        time.sleep(0.05)
    assert loader_threads() == []


def test_a_torch_model_trains_for_an_epoch_from_the_loader_and_its_loss_goes_down(tmp_path):
    torch = need("torch")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4096, 9))
    w = rng.normal(size=8)
    x[:, 8] = x[:, :8] @ w + 0.01 * rng.normal(size=4096)  # the last column is the target
    np.save(tmp_path / "train.npy", x)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    with penstock.DataLoader(penstock.data.rows(tmp_path / "train.npy"), batch_size=64, shuffle=True, seed=1, workers=4) as dl:
        for batch in dl:
            assert isinstance(batch, torch.Tensor) and batch.dtype == torch.float32
            pred = model(batch[:, :8]).squeeze(1)
            loss = torch.nn.functional.mse_loss(pred, batch[:, 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert len(losses) == 64
    assert np.mean(losses[-8:]) < 0.2 * np.mean(losses[:8])
