"""Penstock's potentials and stage pipelines on ``ase.Atoms``, in this process.

``Calculator(potential=...)`` is an ASE calculator for every potential ``penstock simulate``
knows; ``simulate(images, pipeline=..., potential=...)`` runs the stage engine on a list of
``ase.Atoms`` in memory and returns them, as ``penstock simulate`` would write them.
"""

import numpy as np

from . import _jvm
from .errors import InputError

try:
    from ase.calculators.calculator import Calculator as _AseCalculator
    from ase.calculators.calculator import PropertyNotImplementedError, all_changes
    from ase.calculators.singlepoint import SinglePointCalculator
except ImportError as e:  # pragma: no cover - ASE is a dependency of this module only
    raise ImportError("penstock.atoms needs ASE (Debian: apt-get install -y python3-ase)") from e

#: The info keys a run writes on each system (docs/cli.md, "Outcomes and exit codes").
KEYS = ("stages", "outcome", "fmax", "temperature", "quarantined", "conserved_energy", "conserved_energy_drift", "pressure",
        "pressure_tensor", "volume")
_NUMBERS = ("fmax", "temperature", "conserved_energy", "conserved_energy_drift", "pressure", "volume")


def _call(where, fn):
    import jpype
    try:
        return fn()
    except jpype.JException as e:
        from .errors import translate
        raise translate(e, where) from None


def _system(atoms, sid):
    """The Java system of ``atoms`` (as ``penstock simulate`` reads it from extended XYZ)."""
    from jpype import JArray, JBoolean, JDouble, JInt
    from dev.penstock.python import PySimulate
    n = len(atoms)
    positions = np.ascontiguousarray(atoms.get_positions(), dtype=np.float64).reshape(-1)
    masses = np.ascontiguousarray(atoms.get_masses(), dtype=np.float64)
    numbers = np.ascontiguousarray(atoms.get_atomic_numbers(), dtype=np.int32)
    cell = np.ascontiguousarray(atoms.cell.array, dtype=np.float64).reshape(-1)
    pbc = [bool(p) for p in atoms.pbc]
    momenta = atoms.arrays.get("momenta")
    mom = None if momenta is None else JArray(JDouble)(np.ascontiguousarray(momenta, dtype=np.float64).reshape(-1))
    if n == 0:
        raise InputError("system %d has no atoms" % sid)
    return _call("system %d" % sid, lambda: PySimulate.system(sid, JArray(JDouble)(positions), JArray(JDouble)(masses),
                                                             JArray(JInt)(numbers), JArray(JDouble)(cell), JArray(JBoolean)(pbc), mom))


def _stress(atoms, virial):
    """ASE's stress (Voigt, eV/Å³) from a virial: −W/V, for a periodic cell with a volume."""
    if virial is None or not all(atoms.pbc):
        return None
    volume = atoms.get_volume()
    if not volume > 0:
        return None
    w = np.array(virial, dtype=np.float64).reshape(3, 3)
    s = -w / volume
    return np.array([s[0, 0], s[1, 1], s[2, 2], s[1, 2], s[0, 2], s[0, 1]])


class Calculator(_AseCalculator):
    """An ASE calculator over one of Penstock's potentials — ``lj(...)``, ``morse(...)``,
    ``eam(file=...)``, ``sw(file=...)``, ``tersoff(file=...)`` in ``penstock simulate``'s syntax —
    giving energy, forces and, for a periodic cell, the stress (−virial/volume, eV/Å³; free systems
    have none). The numbers are the model's, as ``simulate`` computes them."""

    implemented_properties = ["energy", "free_energy", "forces", "stress"]

    def __init__(self, potential, **kwargs):
        super().__init__(**kwargs)
        _jvm.start()
        from dev.penstock.python import PySimulate
        self.potential = potential
        self._model = _call("potential %r" % potential, lambda: PySimulate.model(potential))

    def calculate(self, atoms=None, properties=("energy",), system_changes=all_changes):
        super().calculate(atoms, properties, system_changes)
        from dev.penstock.python import PySimulate
        s = _system(self.atoms, 0)
        _call("potential %r" % self.potential, lambda: PySimulate.evaluate(self._model, s))
        energy = float(s.energy())
        self.results = {"energy": energy, "free_energy": energy, "forces": np.array(s.forces()).reshape(-1, 3)}
        stress = _stress(self.atoms, None if s.virial() is None else np.array(s.virial()))
        if stress is not None:
            self.results["stress"] = stress
        elif "stress" in properties:
            raise PropertyNotImplementedError("stress needs a periodic cell with a volume (and a potential that gives a virial)")


def simulate(images, pipeline, potential, threads=1, seed=0, max_step=1.0, max_systems=256, max_atoms=4096, refill_every=10):
    """Runs ``pipeline`` (``penstock simulate``'s syntax: ``"fire(fmax=0.01) | nve(dt=1, steps=100)"``)
    over ``potential`` on ``images`` (``ase.Atoms``) in memory, as ``penstock simulate`` runs it
    (the CPU device; ``seed`` keys the Langevin noise; ``max_step``, ``max_systems``, ``max_atoms``
    and ``refill_every`` are its options). Returns new ``ase.Atoms``, one per image, in input order:
    positions, momenta, and a calculator holding energy, forces and (periodic) stress; ``info``
    gains ``stages``, ``outcome`` (``converged``, ``unconverged``, ``completed``, ``quarantined``),
    ``fmax``, after dynamics ``temperature`` (and for a periodic system ``pressure``, eV/Å³, and
    ``volume``, Å³), after ``nvt``/``npt``/``nph`` ``conserved_energy`` and its drift, and for a
    quarantined system ``quarantined`` (its diagnosis) — none is dropped; ``npt``/``nph`` return
    each system in its new cell. A system's id is ``atoms.info["id"]`` when it is an integer,
    else its index (ids key the noise, as in extended XYZ). The same numbers, bit for bit, as
    ``penstock simulate`` writes for these images.
    """
    images = list(images)
    if not images:
        return []
    _jvm.start()
    from dev.penstock.python import PySimulate
    systems, ids = _systems(images)
    done = _call("simulate", lambda: PySimulate.run(systems, pipeline, potential, int(threads), int(seed), float(max_step),
                                                    int(max_systems), int(max_atoms), int(refill_every)))
    by_id = {int(s.id()): s for s in done}
    return [_atoms(atoms, by_id[sid], sid) for atoms, sid in zip(images, ids)]


def simulate_iter(images, pipeline, potential, threads=1, seed=0, max_step=1.0, max_systems=256, max_atoms=4096, refill_every=10,
                  ahead=8):
    """``simulate``, yielding each system as it finishes or is quarantined (in-flight order, not
    input order: ``info["id"]`` says which image it is), while the engine runs the others; at most
    ``ahead`` wait to be taken. Leaving the loop early stops the run."""
    images = list(images)
    if not images:
        return
    _jvm.start()
    from dev.penstock.python import PySimulate
    systems, ids = _systems(images)
    stream = _call("simulate", lambda: PySimulate.start(systems, pipeline, potential, int(threads), int(seed), float(max_step),
                                                        int(max_systems), int(max_atoms), int(refill_every), int(ahead)))
    by_id = dict(zip(ids, images))
    try:
        while True:
            s = _call("simulate", stream.next)
            if s is None:
                return
            sid = int(s.id())
            yield _atoms(by_id[sid], s, sid)
    finally:
        stream.close()


def _systems(images):
    from java.util import ArrayList
    systems = ArrayList()
    ids = []
    for k, atoms in enumerate(images):
        given = atoms.info.get("id")
        sid = int(given) if isinstance(given, (int, np.integer)) and not isinstance(given, bool) else k
        ids.append(sid)
        systems.add(_system(atoms, sid))
    return systems, ids


def _atoms(atoms, s, sid):
    """A copy of ``atoms`` holding what the run left in system ``s``."""
    a = atoms.copy()
    a.calc = None
    if a.cell.rank == 3:  # a barostat's (npt, nph) new cell; the positions below are already in it
        a.set_cell(np.array(s.cell().vectors()).reshape(3, 3), scale_atoms=False)
    a.set_positions(np.array(s.positions()).reshape(-1, 3))
    a.set_momenta(np.array(s.velocities()).reshape(-1, 3) * a.get_masses()[:, None])
    for key in KEYS:
        a.info.pop(key, None)
    info = s.info()
    for key in KEYS:
        if info.containsKey(key):
            value = str(info.get(key))
            if key == "pressure_tensor":  # 3×3, eV/Å³, the kinetic part included (LAMMPS's pxx, pxy, …)
                a.info[key] = np.array([float(x) for x in value.split()]).reshape(3, 3)
            else:
                a.info[key] = float(value) if key in _NUMBERS else value
    a.info["id"] = sid
    stress = _stress(a, None if s.virial() is None else np.array(s.virial()))
    results = {"energy": float(s.energy()), "forces": np.array(s.forces()).reshape(-1, 3)}
    if stress is not None:
        results["stress"] = stress
    a.calc = SinglePointCalculator(a, **results)
    return a
