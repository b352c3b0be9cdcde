"""penstock.encode(..., device="cuda"): states left in GPU memory and handed on as DLPack, checked
through the host emulation of the CUDA driver that the Java tests build (cuda/target/hostcuda:
its device memory cannot be read from the host, as a GPU's cannot), in a fresh interpreter whose
JVM loads it. Where a GPU is, the same script runs on the real driver."""

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EMULATION = os.path.join(ROOT, "cuda", "target", "hostcuda", "libhostcuda.so")

SCRIPT = textwrap.dedent("""
    import ctypes, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import penstock
    from penstock._dlpack import DLManagedTensor

    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]

    rng = np.random.default_rng(11)
    x = rng.normal(size=(37, 16))
    for encoding, dtype, rows in (("amplitude", "complex128", x), ("angle", "complex64", x[:, :4].astype(np.float32)),
                                  ("iqp", "complex128", x[:, :10]), ("basis", "complex64", np.abs(np.round(x[:, :1] * 3)) % 16)):
        s = penstock.encode(rows, encoding=encoding, qubits=4, dtype=dtype, device="cuda")
        assert isinstance(s, penstock.DeviceStates) and s.shape == (37, 16) and s.dtype == np.dtype(dtype), s
        assert s.device == "cuda:0" and s.__dlpack_device__() == (2, 0)
        ref = penstock.encode(rows, encoding=encoding, qubits=4, dtype=dtype)
        np.testing.assert_allclose(s.to_numpy(), ref, rtol=0, atol=1e-5 if dtype == "complex64" else 1e-12)

        cap = s.__dlpack__(stream=None)
        assert api.PyCapsule_GetName(cap) == b"dltensor"
        m = DLManagedTensor.from_address(api.PyCapsule_GetPointer(cap, b"dltensor"))
        t = m.dl_tensor
        assert t.data == s.data_ptr and (t.device.device_type, t.device.device_id) == (2, 0)
        assert t.ndim == 2 and [t.shape[0], t.shape[1]] == [37, 16] and not t.strides and t.byte_offset == 0
        assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (5, np.dtype(dtype).itemsize * 8, 1)
        # a consumer: takes the capsule (renames it) and later calls the deleter
        api.PyCapsule_SetName(cap, b"used_dltensor")
        s.close()
        assert not s._resident.isClosed(), "freed while a consumer holds the states"
        m.deleter(ctypes.pointer(m))
        del cap
        s.close()
        assert s._resident.isClosed()

    # a capsule nobody consumed lets go of the states when it is dropped
    s = penstock.encode(x, qubits=4, device="cuda")
    cap = s.__dlpack__()
    del cap
    s.close()
    assert s._resident.isClosed()
    for use in (s.__dlpack__, s.to_numpy):
        try:
            use()
            raise AssertionError("freed states used")
        except ValueError as e:
            assert "freed" in str(e)

    # bad rows: skipped (each state's input row given) or named
    bad = x.copy()
    bad[[3, 20]] = np.nan
    s, kept = penstock.encode(bad, qubits=4, device="cuda", on_bad_row="skip", return_rows=True)
    assert s.shape == (35, 16) and kept.tolist() == [r for r in range(37) if r not in (3, 20)]
    np.testing.assert_allclose(s.to_numpy(), penstock.encode(x[kept], qubits=4), rtol=0, atol=1e-12)
    try:
        penstock.encode(bad, qubits=4, device="cuda")
        raise AssertionError("a bad row encoded")
    except penstock.EncodingError as e:
        assert "row 3" in str(e), e
    try:
        penstock.encode(x.astype(np.float32), qubits=4, device="cuda")
        raise AssertionError("float32 rows into complex128 states on the GPU")
    except penstock.InputError as e:
        assert "complex64" in str(e) and "\\n" not in str(e), e
    print("ok")
""")


def run(env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-c", SCRIPT, os.path.join(ROOT, "python")], env=env, capture_output=True, text=True,
                          timeout=300)


def test_states_stay_on_the_device_and_go_out_as_dlpack():
    if not os.path.exists(EMULATION):
        if os.environ.get("CI"):
            raise AssertionError("%s is missing: the Java tests (cuda module) build it before these run" % EMULATION)
        pytest.skip("the host CUDA emulation is not built (run the cuda module's tests)")
    r = run({"PENSTOCK_CUDA_DRIVER": EMULATION})
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def test_without_a_gpu_cuda_is_refused_in_one_line():
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import numpy as np, penstock\n"
              "try:\n    penstock.encode(np.ones((2, 4)), qubits=2, device='cuda')\n"
              "except penstock.InputError as e:\n    print('refused:', e)\n")
    r = subprocess.run([sys.executable, "-c", script, os.path.join(ROOT, "python")], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PENSTOCK_CUDA_DRIVER="/nonexistent/libcuda.so"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("refused: device: cuda is not available: no CUDA driver"), r.stdout
    assert len(r.stdout.strip().splitlines()) == 1
    with pytest.raises(ValueError, match="device must be"):
        import penstock
        import numpy as np
        penstock.encode(np.ones((2, 4)), qubits=2, device="gpu")
