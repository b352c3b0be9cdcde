"""penstock.encode: the CLI's states, bit for bit, from arrays and files, without copies."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import penstock
from conftest import need

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WIDTH = {"amplitude": lambda n: (1 << n) - 3, "angle": lambda n: n, "basis": lambda n: 1, "phase": lambda n: n,
         "iqp": lambda n: n + n * (n - 1) // 2, "iqp-z": lambda n: n}


def rows(encoding, n, count, dtype, seed=7):
    rng = np.random.default_rng(seed)
    if encoding == "basis":
        return rng.integers(0, 1 << n, size=(count, 1)).astype(dtype)
    return rng.uniform(-3, 3, size=(count, WIDTH[encoding](n))).astype(dtype)


def cli_encode(path, out, *args):
    """The command line's encode, in this process's JVM (the same code `./penstock encode` runs)."""
    penstock.start()
    from dev.penstock.cli import Main
    code = Main.execute(["encode", str(path), "--out", str(out), "--quiet"] + list(args))
    assert code == 0, code
    return np.load(out)


@pytest.mark.parametrize("encoding", sorted(WIDTH))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_encoding_gives_the_command_lines_states_bit_for_bit(tmp_path, encoding, dtype):
    n = 5
    x = rows(encoding, n, 300, dtype)
    np.save(tmp_path / "x.npy", x)
    states_type = "complex64" if dtype == "float32" else "complex128"
    want = cli_encode(tmp_path / "x.npy", tmp_path / "s.npy", "--encoding", encoding, "--qubits", str(n))
    got = penstock.encode(x, encoding=encoding, qubits=n, dtype=states_type)
    assert got.dtype == want.dtype == np.dtype(states_type)
    assert got.shape == (300, 1 << n)
    assert got.tobytes() == want.tobytes()
    from_file = penstock.encode(tmp_path / "x.npy", encoding=encoding, qubits=n, dtype=states_type)
    assert from_file.tobytes() == want.tobytes()


def test_amplitude_states_are_numpys_normalised_rows():
    x = np.random.default_rng(3).normal(size=(64, 1000))
    got = penstock.encode(x, qubits=10)
    want = np.zeros((64, 1024), dtype=np.complex128)
    want[:, :1000] = x / np.linalg.norm(x, axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)


def test_the_states_are_written_in_place_and_handed_over_without_a_copy():
    x = np.array([[3.0, 4.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    s = penstock.encode(x, qubits=2)
    assert not s.flags.owndata  # a view of the JVM's buffer
    assert np.from_dlpack(s).ctypes.data == s.ctypes.data
    torch = need("torch")
    t = torch.from_dlpack(s)
    assert t.data_ptr() == s.ctypes.data
    t[0, 0] = 7
    assert s[0, 0] == 7
    # the memory lives as long as the arrays, whatever the JVM's collector does
    from java.lang import System
    kept = [penstock.encode(np.full((8, 1024), i + 1.0), qubits=10) for i in range(4)]
    System.gc()
    for k in kept:
        np.testing.assert_allclose(k.real, 1 / 32, rtol=1e-15)


def test_read_only_arrays_memory_maps_and_other_layouts_encode(tmp_path):
    x = np.random.default_rng(1).uniform(1, 2, size=(50, 3))
    want = penstock.encode(x, encoding="angle", qubits=3)
    np.save(tmp_path / "x.npy", x)
    mapped = np.load(tmp_path / "x.npy", mmap_mode="r")
    assert penstock.encode(mapped, encoding="angle", qubits=3).tobytes() == want.tobytes()
    fortran = np.asfortranarray(x)
    assert penstock.encode(fortran, encoding="angle", qubits=3).tobytes() == want.tobytes()
    assert penstock.encode(x.astype(">f8"), encoding="angle", qubits=3).tobytes() == want.tobytes()


def test_bad_rows_fail_naming_the_row_or_are_skipped_and_their_rows_returned():
    x = np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, 4.0], [0.5, np.inf]])
    with pytest.raises(penstock.EncodingError, match=r"row 1: value 0 is NaN") as e:
        penstock.encode(x, encoding="angle", qubits=2)
    assert isinstance(e.value, ValueError)
    states, kept = penstock.encode(x, encoding="angle", qubits=2, on_bad_row="skip", return_rows=True)
    assert kept.tolist() == [0, 2]
    assert kept.dtype == np.int64
    assert states.tobytes() == penstock.encode(x[[0, 2]], encoding="angle", qubits=2).tobytes()


def test_bad_arguments_are_python_errors_with_one_line(tmp_path):
    x = np.ones((4, 3))
    with pytest.raises(ValueError, match="takes exactly 4"):
        penstock.encode(x, encoding="angle", qubits=4)
    with pytest.raises(ValueError, match="float32 or float64"):
        penstock.encode(np.ones((4, 3), dtype=np.int64), encoding="angle", qubits=3)
    with pytest.raises(ValueError, match="2-D"):
        penstock.encode(np.ones((2, 2, 2)), qubits=3)
    with pytest.raises(ValueError, match=r"qubits must be an integer in \[1, 30\]"):
        penstock.encode(x, qubits=31)
    with pytest.raises(ValueError, match="encoding must be one of"):
        penstock.encode(x, encoding="amplitud", qubits=3)
    with pytest.raises(FileNotFoundError, match="nope.npy: no such file"):
        penstock.encode(tmp_path / "nope.npy", qubits=3)
    (tmp_path / "text.npy").write_text("not an array")
    with pytest.raises(penstock.InputError, match="text.npy") as e:
        penstock.encode(tmp_path / "text.npy", qubits=3)
    assert "\n" not in str(e.value) and "at dev.penstock" not in str(e.value)


def test_hdf5_datasets_are_read_as_the_command_line_reads_them(tmp_path):
    h5py = need("h5py")
    x = rows("iqp", 4, 120, "float64")
    with h5py.File(tmp_path / "d.h5", "w") as f:
        f.create_dataset("/train/x", data=x, chunks=(16, 10), compression="gzip")
        f.create_dataset("/train/y", data=np.arange(120.0).reshape(120, 1))
    with pytest.raises(ValueError, match="dataset"):
        penstock.encode(tmp_path / "d.h5", encoding="iqp", qubits=4)
    got = penstock.encode(tmp_path / "d.h5", dataset="/train/x", encoding="iqp", qubits=4)
    assert got.tobytes() == penstock.encode(x, encoding="iqp", qubits=4).tobytes()


def test_threads_calling_in_at_once_each_get_their_own_states():
    xs = [rows("phase", 6, 200, "float64", seed=s) for s in range(6)]
    want = [penstock.encode(x, encoding="phase", qubits=6) for x in xs]
    got = [None] * len(xs)

    def work(k):
        got[k] = penstock.encode(xs[k], encoding="phase", qubits=6)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for k in range(len(xs)):
        assert got[k].tobytes() == want[k].tobytes()


def run_python(code, env=None, timeout=120):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.path.join(ROOT, "python")
    e.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=e)


def test_a_fresh_interpreter_imports_twice_encodes_and_exits_without_hanging():
    r = run_python("import penstock, numpy as np\nimport penstock as again\n"
                   "s = again.encode(np.array([[3.0, 4.0]]), qubits=1)\nprint(s[0, 0].real)\n")
    assert r.returncode == 0, r.stderr
    assert abs(float(r.stdout) - 0.6) < 1e-15
    assert "Using incubator modules" not in r.stderr


def test_without_the_jars_the_import_error_names_the_command_that_builds_them(tmp_path):
    r = run_python("import penstock", env={"PENSTOCK_HOME": str(tmp_path)})
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "penstock mvn -q -B -DskipTests package" in r.stderr


def java_threads(name):
    from java.lang import Thread
    return [t for t in Thread.getAllStackTraces().keySet() if str(t.getName()) == name]


def test_batches_come_in_input_order_and_are_the_whole_encode_cut_in_pieces(tmp_path):
    x = rows("amplitude", 6, 2500, "float64", seed=5)
    whole = penstock.encode(x, qubits=6)
    parts = list(penstock.encode_batches(x, batch_size=512, qubits=6))
    assert [p.shape for p in parts] == [(512, 64)] * 4 + [(452, 64)]
    assert np.concatenate(parts).tobytes() == whole.tobytes()
    np.save(tmp_path / "x.npy", x)
    from_file = list(penstock.encode_batches(tmp_path / "x.npy", batch_size=1000, qubits=6))
    assert np.concatenate(from_file).tobytes() == whole.tobytes()


def test_a_bad_row_fails_at_its_batch_and_skip_keeps_the_others():
    x = rows("angle", 3, 1000, "float64")
    x[555, 1] = np.nan
    seen = []
    with pytest.raises(penstock.EncodingError, match="row 555"):
        for b in penstock.encode_batches(x, batch_size=100, encoding="angle", qubits=3):
            seen.append(b.shape[0])
    assert seen == [100] * 5 + [55]  # every row before it came through first
    sizes = [b.shape[0] for b in penstock.encode_batches(x, batch_size=100, encoding="angle", qubits=3, on_bad_row="skip")]
    assert sizes == [100] * 5 + [99] + [100] * 4


def test_leaving_the_loop_early_stops_the_engine():
    x = rows("phase", 8, 20000, "float64")
    batches = penstock.encode_batches(x, batch_size=100, encoding="phase", qubits=8, ahead=2)
    first = next(batches)
    assert first.shape == (100, 256)
    assert len(java_threads("penstock-encode-batches")) == 1
    batches.close()
    import time
    deadline = time.time() + 30
    while java_threads("penstock-encode-batches") and time.time() < deadline:
        time.sleep(0.05)
    assert java_threads("penstock-encode-batches") == []
    assert first[0].tobytes() == penstock.encode(x[:1], encoding="phase", qubits=8)[0].tobytes()


def test_states_go_into_a_reused_out_array_and_a_wrong_one_is_refused():
    x = rows("amplitude", 4, 100, "float64")
    out = np.empty((100, 16), dtype=np.complex128)
    s = penstock.encode(x, qubits=4, out=out)
    assert np.shares_memory(s, out)
    assert s.tobytes() == penstock.encode(x, qubits=4).tobytes()
    with pytest.raises(ValueError, match="out must be"):
        penstock.encode(x, qubits=4, out=np.empty((100, 16), dtype=np.complex64))
    x[3, 0] = np.nan
    s, kept = penstock.encode(x, qubits=4, out=out, on_bad_row="skip", return_rows=True)
    assert s.shape == (99, 16) and 3 not in kept.tolist()
    assert s.tobytes() == penstock.encode(np.delete(x, 3, axis=0), qubits=4).tobytes()


def test_rows_split_over_the_cores_keep_input_order_and_the_first_bad_row_is_named():
    x = rows("angle", 3, 5000, "float64", seed=9)
    x[[700, 4100]] = np.nan  # in different parts
    with pytest.raises(penstock.EncodingError, match="row 700:"):
        penstock.encode(x, encoding="angle", qubits=3)
    s, kept = penstock.encode(x, encoding="angle", qubits=3, on_bad_row="skip", return_rows=True)
    good = np.delete(np.arange(5000), [700, 4100])
    assert kept.tolist() == good.tolist()
    one_by_one = np.concatenate([penstock.encode(x[i:i + 1], encoding="angle", qubits=3) for i in good[::97]])
    assert s[::97].tobytes() == one_by_one.tobytes()
