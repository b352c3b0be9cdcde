"""States left in GPU memory, handed on as DLPack capsules (the protocol ``torch.from_dlpack``,
CuPy and JAX take): a ``DLManagedTensor`` built with ctypes, its deleter releasing a reference to
the states, which free their device memory when nothing holds them any more."""

import ctypes

import numpy as np

KDL_CUDA = 2      # DLDeviceType
KDL_COMPLEX = 5   # DLDataTypeCode


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# what a handed-out tensor keeps alive, by the address of its DLManagedTensor: the struct, its
# shape, and the states (so their device memory) until the consumer calls the deleter
_alive = {}


@_DELETER
def _delete(managed):
    _alive.pop(ctypes.addressof(managed.contents), None)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_gone(capsule):
    # a capsule nobody consumed (still named "dltensor") is the producer's to delete
    cap = ctypes.cast(capsule, ctypes.py_object)
    if _api.PyCapsule_IsValid(cap, b"dltensor"):
        address = _api.PyCapsule_GetPointer(cap, b"dltensor")
        _alive.pop(address, None)


class DeviceStates:
    """Quantum states in a GPU's memory (``penstock.encode(..., device="cuda")``): ``shape``
    ``(rows, 2**qubits)``, ``dtype`` complex64 or complex128, on ``device`` (``"cuda:N"``).

    ``torch.from_dlpack(states)`` (and any DLPack consumer) takes them without a copy: a DLPack
    tensor of device type CUDA over this memory, which stays allocated while the consumer's
    tensor lives. ``to_numpy()`` copies them to the host. ``rows`` gives each state's input row
    (``on_bad_row="skip"``). ``close()`` frees the memory at once if no consumer holds it;
    otherwise it is freed when the last holder lets go.
    """

    def __init__(self, resident, rows):
        self._resident = resident
        self.rows = rows
        self.shape = (int(resident.count()), int(resident.stateSize()))
        self.dtype = np.dtype(str(resident.dtype()))
        self.device = "cuda:%d" % int(resident.ordinal())
        self.data_ptr = int(resident.address())

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return "DeviceStates(shape=%s, dtype=%s, device=%s)" % (self.shape, self.dtype, self.device)

    def __dlpack_device__(self):
        return (KDL_CUDA, int(self._resident.ordinal()))

    def __dlpack__(self, stream=None):
        """A ``dltensor`` capsule over the states. They are complete when this returns (the
        encode waited for its stream), so any consumer ``stream`` may read them at once."""
        if self._resident.isClosed():
            raise ValueError("the states were freed (close() was called)")
        managed = DLManagedTensor()
        shape = (ctypes.c_int64 * 2)(*self.shape)
        t = managed.dl_tensor
        t.data = self.data_ptr
        t.device = _DLDevice(KDL_CUDA, int(self._resident.ordinal()))
        t.ndim = 2
        t.dtype = _DLDataType(KDL_COMPLEX, self.dtype.itemsize * 8, 1)
        t.shape = shape
        t.strides = None  # C order
        t.byte_offset = 0
        managed.manager_ctx = None
        managed.deleter = _delete
        address = ctypes.addressof(managed)
        _alive[address] = (managed, shape, self)
        return _api.PyCapsule_New(address, b"dltensor", ctypes.cast(_capsule_gone, ctypes.c_void_p))

    def to_numpy(self):
        """A copy of the states in host memory (a NumPy array)."""
        if self._resident.isClosed():
            raise ValueError("the states were freed (close() was called)")
        out = np.empty(self.shape, dtype=self.dtype)
        if out.size:
            self._resident.copyTo(out.ctypes.data)
        return out

    def close(self):
        """Frees the states' device memory, unless a DLPack consumer still holds it (then it is
        freed when that consumer lets go)."""
        if not any(held[2] is self for held in _alive.values()):
            self._resident.close()

    def __del__(self):
        try:
            self._resident.close()
        except Exception:  # the JVM may be gone at interpreter exit
            pass
