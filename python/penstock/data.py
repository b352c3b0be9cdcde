"""Map-style datasets over the files Penstock reads, loaded on the JVM's I/O threads (which never
hold the GIL), and ``DataLoader``, which a PyTorch training loop iterates like torch's own."""

import os

import numpy as np

from . import _jvm
from .errors import InputError, InputNotFoundError, PenstockError


class LoaderError(PenstockError, RuntimeError):
    """A sample that could not be loaded: the message names its file and index."""


def _call(where, fn, error=None):
    import jpype
    try:
        return fn()
    except jpype.JException as e:
        if error is not None:
            # the loader wraps what went wrong: the message to give is the dataset's own (it names
            # the file and the sample), or else the innermost one
            cause, named = e, None
            while cause is not None:
                if str(cause.getClass().getName()) in ("java.lang.IllegalArgumentException", "dev.penstock.io.BadInputException"):
                    named = cause
                nxt = cause.getCause()
                cause = nxt if nxt is not None and nxt is not cause else None
            if named is None:
                named = e
                while named.getCause() is not None and named.getCause() is not named:
                    named = named.getCause()
            message = str(named.getMessage() or named.getClass().getName())
            err = error("%s: %s" % (where, message) if not message.startswith(str(where)) else message)
            from . import errors
            if errors._debug:
                err.__cause__ = e
            raise err from None
        from .errors import translate
        raise translate(e, where) from None


def _doubles(values):
    if values is None:
        return None
    from jpype import JArray, JDouble
    return JArray(JDouble)(np.atleast_1d(np.asarray(values, dtype=np.float64)))


class Dataset:
    """A dataset made by ``rows`` or ``files``: ``len(d)`` samples of shape ``d.shape`` (``None``
    on an axis where samples of several shapes differ)."""

    def __init__(self, java, where):
        self._java = java
        self._where = where
        self.shape = tuple(int(n) if n >= 0 else None for n in java.shape())

    def __len__(self):
        return int(self._java.size())


def rows(path, columns=None, dataset=None, dtype="float32", mean=None, std=None, subsample=None):
    """Each row of a table a sample: ``.npy`` ``[rows, values]``, Parquet or Arrow IPC (``columns``;
    by default the table's one list column, else its float columns, else its integer ones) or HDF5
    (``dataset``). A compressed Parquet file is decoded into memory once, here. Transforms on the I/O threads: conversion to ``dtype``; ``(x - mean) / std``
    (one value, or one per value); ``subsample=N``: N of the row's values drawn from the sample's
    own generator (the same for any number of workers)."""
    _jvm.start()
    from java.util import ArrayList
    from dev.penstock.python import PyDataset
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputNotFoundError("%s: no such file" % path)
    names = ArrayList()
    for c in columns or []:
        names.add(str(c))
    java = _call(path, lambda: PyDataset.rows(path, names, dataset, dtype, _doubles(mean), _doubles(std), int(subsample or 0)))
    return Dataset(java, path)


def _is_zarr_array(path):
    if os.path.isfile(os.path.join(path, ".zarray")):
        return True
    meta = os.path.join(path, "zarr.json")
    if not os.path.isfile(meta):
        return False
    import json
    try:
        with open(meta) as f:
            return json.load(f).get("node_type") == "array"
    except (OSError, ValueError):
        return False


def files(paths, dtype="float32", mean=None, std=None, subsample=None):
    """Each ``.npy`` file or Zarr array (v2 or v3, as zarr-python writes it) a sample: 1-D, or 2-D
    points × features. ``paths``: a list, or a folder (its ``.npy`` files and Zarr arrays, in name
    order). Transforms as ``rows``; ``subsample=N`` draws N points (rows) of each sample, so
    samples of any number of points make batches of one shape. Without it, samples of several
    shapes (one rank) are loaded as they are, and ``DataLoader`` yields each batch as a list."""
    _jvm.start()
    from java.util import ArrayList
    from dev.penstock.python import PyDataset
    if isinstance(paths, (str, os.PathLike)) and os.path.isdir(paths) and not _is_zarr_array(os.fspath(paths)):
        folder = os.fspath(paths)
        paths = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                       if f.endswith(".npy") or os.path.isdir(os.path.join(folder, f)) and _is_zarr_array(os.path.join(folder, f)))
        if not paths:
            raise InputError("%s: no .npy files or Zarr arrays in the folder" % folder)
    elif isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    names = ArrayList()
    for p in paths:
        if not os.path.exists(os.fspath(p)):
            raise InputNotFoundError("%s: no such file" % os.fspath(p))
        names.add(os.fspath(p))
    java = _call("files", lambda: PyDataset.files(names, dtype, _doubles(mean), _doubles(std), int(subsample or 0)))
    return Dataset(java, "files")


class DataLoader:
    """Batches of a ``penstock.data`` dataset, as ``torch.Tensor`` (NumPy arrays without torch),
    loaded and transformed on the JVM's I/O threads and stacked one batch ahead. A dataset of
    samples of several shapes yields each batch as a list of its samples' tensors (views into one
    block of the loader's memory, like a stacked batch).

    Every sample once per epoch; the order is a function of ``seed`` and the epoch only (the same
    for any ``workers``); ``set_epoch(e)``; ``state_dict()`` / ``load_state_dict()`` resume
    mid-epoch to the very batches an uninterrupted run yields. A batch is a view of the loader's
    memory, valid until the next one is asked for: copy it (``t.clone()``) to keep it longer. A
    sample that fails to load raises ``LoaderError`` at its batch, naming its file and index.
    ``close()`` (or ``with``) stops the threads; leaving a loop early stops them at the next
    ``iter``, ``close`` or exit.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, seed=0, drop_last=False, workers=4, prefetch=2, as_numpy=False):
        if not isinstance(dataset, Dataset):
            raise InputError("dataset must come from penstock.data.rows() or penstock.data.files()")
        from dev.penstock.python import PyLoader
        self.dataset = dataset
        self.batch_size = batch_size
        self._java = _call("DataLoader", lambda: PyLoader(dataset._java, int(batch_size), bool(shuffle), int(seed), bool(drop_last),
                                                           int(workers), int(prefetch)))
        self._torch = None
        if not as_numpy:
            try:
                import torch
                self._torch = torch
            except ImportError:
                pass

    def __len__(self):
        return int(self._java.batchesPerEpoch())

    def __iter__(self):
        self._java.begin()
        while True:
            buffer = _call(self.dataset._where, self._java.next, LoaderError)
            if buffer is None:
                return
            values = np.asarray(buffer).view(str(self._java.dtype()))
            shapes = self._java.sampleShapes()
            if shapes is None:
                batch = values.reshape(tuple(int(n) for n in self._java.shape()))
                yield self._torch.from_numpy(batch) if self._torch is not None else batch
                continue
            samples, at = [], 0
            for s in shapes:
                shape = tuple(int(n) for n in s)
                n = int(np.prod(shape))
                sample = values[at:at + n].reshape(shape)
                samples.append(self._torch.from_numpy(sample) if self._torch is not None else sample)
                at += n
            yield samples

    def set_epoch(self, epoch):
        """The epoch the next iteration runs (its order depends on the seed and it)."""
        self._java.setEpoch(int(epoch))

    def state_dict(self):
        """Where the iteration is: seed, epoch and batches delivered in it."""
        seed, epoch, delivered = (int(v) for v in self._java.state())
        return {"seed": seed, "epoch": epoch, "batches_delivered": delivered}

    def load_state_dict(self, state):
        """Resumes at ``state``: the next ``iter`` yields the batches an uninterrupted run would."""
        self._java.restore(int(state["seed"]), int(state["epoch"]), int(state["batches_delivered"]))

    def close(self):
        self._java.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
