"""Penstock from Python: the same engine as the ``penstock`` command, in this process.

The JVM starts once, the first time a function needs it (``penstock.start()`` starts it now).
Arrays go in and come out without a copy between Python and the JVM.
"""

import os

import numpy as np

from . import _jvm
from .errors import EncodingError, InputError, InputNotFoundError, PenstockError, debug
from .data import DataLoader, LoaderError
from . import data
from ._dlpack import DeviceStates

__all__ = ["encode", "encode_batches", "DeviceStates", "DataLoader", "LoaderError", "data", "start", "debug", "PenstockError", "InputError", "EncodingError", "InputNotFoundError"]

_jvm.jars(_jvm.home())  # the jars ./penstock builds: missing, the ImportError names the command that builds them

_ENCODINGS = ("amplitude", "angle", "basis", "phase", "iqp", "iqp-z")


def start():
    """Starts the JVM with Penstock's jars (once per process; later calls return at once)."""
    _jvm.start()


def _java_call(where, call):
    import jpype
    try:
        return call()
    except jpype.JException as e:
        from .errors import translate
        raise translate(e, where) from None


def _view(buffer, dtype):
    """A NumPy array over a Java direct ByteBuffer's memory, without a copy (the array keeps the
    buffer, and so the memory, alive)."""
    return np.asarray(buffer).view(dtype)


def _check(encoding, qubits, dtype, on_bad_row):
    """Checks the options as the command line does; returns the states' NumPy type name."""
    if encoding not in _ENCODINGS:
        raise InputError("encoding must be one of %s, got %r" % (", ".join(_ENCODINGS), encoding))
    if dtype not in ("complex64", "complex128", np.complex64, np.complex128):
        raise InputError("dtype must be 'complex64' or 'complex128', got %r" % (dtype,))
    if on_bad_row not in ("fail", "skip"):
        raise InputError("on_bad_row must be 'fail' or 'skip', got %r" % (on_bad_row,))
    if not isinstance(qubits, (int, np.integer)) or isinstance(qubits, bool) or not 1 <= qubits <= 30:
        raise InputError("qubits must be an integer in [1, 30], got %r" % (qubits,))
    _jvm.start()
    return np.dtype(dtype).name


def _input(x):
    """(where, path, array): a path that exists, or a 2-D float32/float64 C-ordered array."""
    if isinstance(x, (str, os.PathLike)):
        path = os.fspath(x)
        if not os.path.exists(path):
            raise InputNotFoundError("%s: no such file" % path)
        return path, path, None
    a = np.asarray(x)
    if a.dtype.kind != "f" or a.dtype.itemsize not in (4, 8):
        raise InputError("x must be a float32 or float64 array, got %s" % a.dtype)
    if a.ndim != 2:
        raise InputError("x must be 2-D (rows, values), got shape %s" % (a.shape,))
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise InputError("x must have at least one row and one value, got shape %s" % (a.shape,))
    if not (a.flags.c_contiguous and a.dtype.isnative):
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))  # one copy: the JVM reads C order
    return "x", None, a


def _names(columns):
    from java.util import ArrayList
    names = ArrayList()
    for c in (columns or []):
        names.add(str(c))
    return names


def encode(x, encoding="amplitude", qubits=10, dtype="complex128", on_bad_row="fail", return_rows=False,
           columns=None, dataset=None, out=None, rows_per_chunk=1024, io_threads=4, device="cpu"):
    """Encodes rows into quantum state vectors, as ``penstock encode`` does (the same states, bit
    for bit: docs/definitions.md has the encodings' exact definitions).

    ``x`` is a 2-D float32 or float64 NumPy array (a C-contiguous one — read-only arrays and
    memory maps too — is read in place; another is copied once) or a path: ``.npy``, ``.parquet``/``.arrow``/``.feather``/``.arrows`` (``columns``:
    names; default: the table's one list column, else its float columns, else its integer ones),
    ``.h5``/``.hdf5`` (``dataset``: default the file's only 2-D numeric one).

    Returns a ``(rows, 2**qubits)`` complex64 or complex128 array (``dtype``) the JVM wrote the
    states into directly (no copy on the way out); from an array, the rows are split over every
    core. ``out=`` (array inputs) gives the array to write into: a C-contiguous one of that shape
    and dtype, reused across calls; the states are its first rows (all of them unless rows were
    skipped). ``np.from_dlpack`` and ``torch.from_dlpack`` take the result without a copy.

    ``on_bad_row="fail"`` raises ``EncodingError`` (a ``ValueError``) naming the first bad row and
    the rule; ``"skip"`` leaves bad rows out. With ``return_rows=True`` the result is
    ``(states, rows)``: the input row of each state (int64).

    ``device="cuda"`` (or ``"cuda:N"``; array inputs) encodes on that GPU and leaves the states in
    its memory: the result is a ``DeviceStates``, which ``torch.from_dlpack`` takes without a copy
    (a DLPack tensor of device type CUDA). The GPU kernels make complex64 states from float32 rows,
    and complex64 or complex128 from float64 rows.
    """
    states_type = _check(encoding, qubits, dtype, on_bad_row)
    from dev.penstock.python import PyEncode

    where, path, a = _input(x)
    if device != "cpu":
        return _on_device(where, path, a, encoding, qubits, states_type, on_bad_row, return_rows, out, device)
    if path is not None:
        if out is not None:
            raise InputError("out= is for array inputs (a file's rows are counted as it is read)")
        result = _java_call(where, lambda: PyEncode.file(path, _names(columns), dataset, encoding, int(qubits), states_type, on_bad_row,
                                                         int(rows_per_chunk), int(io_threads)))
        states = _view(result.states(), states_type).reshape(int(result.written()), int(result.stateSize()))
        return (states, _view(result.keptRows(), np.int64)) if return_rows else states
    shape = (a.shape[0], 1 << int(qubits))
    if out is None:
        out = np.empty(shape, dtype=states_type)
    elif not (isinstance(out, np.ndarray) and out.shape == shape and out.dtype == np.dtype(states_type) and out.flags.c_contiguous
              and out.flags.writeable):
        raise InputError("out must be a writable C-contiguous %s array of shape %s" % (states_type, shape))
    kept = np.empty(a.shape[0], dtype=np.int64)
    # the JVM reads `a` and writes `out` and `kept` where they lie (no copy either way); all three
    # are referenced until the call returns
    written = int(_java_call(where, lambda: PyEncode.array(a.ctypes.data, a.shape[0], a.shape[1], a.dtype.name, encoding, int(qubits),
                                                           states_type, on_bad_row, out.ctypes.data, kept.ctypes.data)))
    states = out[:written]
    return (states, kept[:written]) if return_rows else states


def _on_device(where, path, a, encoding, qubits, states_type, on_bad_row, return_rows, out, device):
    import re
    if not isinstance(device, str) or not re.fullmatch(r"cuda(:\d+)?", device):
        raise InputError("device must be 'cpu', 'cuda' or 'cuda:N', got %r" % (device,))
    if path is not None or out is not None:
        raise InputError("device=%r takes an array x and no out= (read a file's rows with numpy or penstock.data first)" % device)
    from dev.penstock.python import PyEncode
    from ._dlpack import DeviceStates
    kept = np.empty(a.shape[0], dtype=np.int64)
    try:
        resident = _java_call(where, lambda: PyEncode.onDevice(a.ctypes.data, a.shape[0], a.shape[1], a.dtype.name, encoding,
                                                               int(qubits), states_type, on_bad_row, device, kept.ctypes.data))
    except InputError as e:  # the command line's option name is not the function's
        message = str(e)
        if "option '--device': " in message:
            raise type(e)("device: " + message.split("option '--device': ", 1)[1]) from None
        raise
    states = DeviceStates(resident, kept[:int(resident.count())])
    return (states, states.rows) if return_rows else states


def encode_batches(x, batch_size=1024, encoding="amplitude", qubits=10, dtype="complex128", on_bad_row="fail",
                   columns=None, dataset=None, io_threads=4, ahead=2):
    """Encodes an input larger than memory batch by batch: yields ``(k, 2**qubits)`` arrays of
    states in input order, one per ``batch_size`` input rows (fewer when ``on_bad_row="skip"``
    left rows out). ``x`` and the options are ``encode``'s. The engine encodes while you consume;
    at most ``ahead`` batches wait to be taken, so memory stays bounded whatever the input's size.
    Each batch is its own memory (keeping one keeps only it). A bad row under ``"fail"`` raises
    ``EncodingError`` at the batch it belongs to; leaving the loop early stops the engine.
    """
    states_type = _check(encoding, qubits, dtype, on_bad_row)
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise InputError("batch_size must be a positive integer, got %r" % (batch_size,))
    if not isinstance(ahead, (int, np.integer)) or ahead < 1:
        raise InputError("ahead must be a positive integer, got %r" % (ahead,))
    from dev.penstock.python import PyEncodeStream

    where, path, a = _input(x)
    if path is not None:
        stream = _java_call(where, lambda: PyEncodeStream.file(path, _names(columns), dataset, encoding, int(qubits), states_type,
                                                               on_bad_row, int(batch_size), int(io_threads), int(ahead)))
    else:
        stream = _java_call(where, lambda: PyEncodeStream.array(a.ctypes.data, a.shape[0], a.shape[1], a.dtype.name, encoding,
                                                                int(qubits), states_type, on_bad_row, int(batch_size), int(io_threads),
                                                                int(ahead)))
    return _batches(stream, where, states_type, a)


def _batches(stream, where, states_type, keep):
    # `keep`: the array the stream reads in place, referenced as long as the generator lives
    size = int(stream.stateSize())
    try:
        while True:
            batch = _java_call(where, stream.next)
            if batch is None:
                return
            yield _view(batch, states_type).reshape(-1, size)
    finally:
        stream.close()
        del keep
