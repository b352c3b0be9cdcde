"""penstock.atoms: the ASE calculator and simulate() on ase.Atoms, against the command line."""

import os

import numpy as np
import pytest

import penstock
from conftest import need

ase = need("ase")
from ase import Atoms  # noqa: E402
from ase.build import bulk  # noqa: E402
import ase.io  # noqa: E402

from penstock import atoms as patoms  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)"
CU = "/usr/share/lammps/potentials/Cu_u3.eam"


def cli(*args):
    penstock.start()
    from dev.penstock.cli import Main
    return int(Main.execute(list(args) + ["-q"]))


def argon(count=4):
    return ase.io.read(os.path.join(ROOT, "examples", "argon-clusters.xyz"), ":%d" % count)


def test_the_calculator_gives_the_command_lines_energy_forces_and_stress(tmp_path):
    if not os.path.exists(CU):
        pytest.skip("lammps-data is not installed") if not os.environ.get("CI") else pytest.fail(CU + " missing")
    cu = bulk("Cu", "fcc", a=3.6, cubic=True).repeat((3, 3, 3))
    cu.rattle(0.05, seed=1)
    cu.set_cell(cu.cell.array + np.array([[0, 0, 0], [0.3, 0, 0], [0.2, 0.1, 0]]), scale_atoms=True)  # triclinic
    free = argon(1)[0]
    for atoms, potential in ((cu, "eam(file=%s)" % CU), (free, LJ)):
        ase.io.write(tmp_path / "one.xyz", atoms, format="extxyz")
        assert cli("simulate", str(tmp_path / "one.xyz"), "--pipeline", "fire(steps=0)", "--potential", potential, "--out",
                   str(tmp_path / "cli.xyz")) == 0
        want = ase.io.read(tmp_path / "cli.xyz")
        a = ase.io.read(tmp_path / "one.xyz")  # the same numbers the command line read
        a.calc = patoms.Calculator(potential=potential)
        assert a.get_potential_energy() == want.get_potential_energy()
        assert np.array_equal(a.get_forces(), want.get_forces())
        if all(a.pbc):
            np.testing.assert_allclose(a.get_stress(), want.get_stress(), rtol=1e-14, atol=1e-18)
        else:
            with pytest.raises(Exception, match="stress needs a periodic cell"):
                a.get_stress()


def forces_are_the_gradient(atoms, potential, entries, tolerance, h=1e-5):
    """The calculator's force components `entries` ((atom, axis) pairs) against central
    differences of its energy."""
    f = atoms.get_forces()
    for i, c in entries:
        b = atoms.copy()
        b.calc = patoms.Calculator(potential=potential)
        b.positions[i, c] += h
        ep = b.get_potential_energy()
        b.positions[i, c] -= 2 * h
        em = b.get_potential_energy()
        assert abs(-(ep - em) / (2 * h) - f[i, c]) < tolerance


def test_the_calculators_forces_are_the_energys_gradient_and_ase_relaxes_with_it():
    a = argon(1)[0]
    a.calc = patoms.Calculator(potential=LJ)
    e0 = a.get_potential_energy()
    forces_are_the_gradient(a, LJ, ((0, 0), (5, 2)), 1e-7)
    from ase.optimize import FIRE
    FIRE(a, logfile=None).run(fmax=0.01, steps=500)
    assert np.abs(a.get_forces()).max() < 0.01 * 1.0001 and a.get_potential_energy() < e0


def test_simulate_on_atoms_is_the_command_line_bit_for_bit(tmp_path):
    images = argon(6)
    pipeline = "fire(fmax=0.01) + langevin(T=40, dt=5, steps=50) | nve(dt=5, steps=20)"
    ase.io.write(tmp_path / "in.xyz", images, format="extxyz")
    assert cli("simulate", str(tmp_path / "in.xyz"), "--pipeline", pipeline, "--potential", LJ, "--out", str(tmp_path / "out.xyz"),
               "--threads", "1") == 0
    want = ase.io.read(tmp_path / "out.xyz", ":")
    got = patoms.simulate(ase.io.read(tmp_path / "in.xyz", ":"), pipeline=pipeline, potential=LJ)
    assert len(got) == len(want) == 6
    for g, w in zip(got, want):
        assert np.array_equal(g.positions, w.positions)
        assert np.array_equal(g.get_forces(), w.get_forces())
        assert g.get_potential_energy() == w.get_potential_energy()
        np.testing.assert_allclose(g.get_momenta(), w.get_momenta(), rtol=1e-15, atol=1e-300)
        for key in ("stages", "outcome", "fmax", "temperature", "id"):
            assert g.info[key] == w.info[key], key
    assert {g.info["outcome"] for g in got} == {"converged"}


def test_a_system_that_goes_bad_comes_back_marked_and_the_others_finish():
    images = argon(3)
    bad = images[1]
    bad.positions[1] = bad.positions[0]  # two atoms on one spot
    out = patoms.simulate(images, pipeline="fire(fmax=0.05)", potential=LJ)
    assert [a.info["outcome"] for a in out] == ["converged", "quarantined", "converged"]
    assert "quarantined" in out[1].info and out[1].info["quarantined"]
    assert len(out[1]) == len(images[1])


def test_bad_pipelines_potentials_and_elements_are_python_errors():
    images = argon(1)
    with pytest.raises(ValueError, match="known: fire"):
        patoms.simulate(images, pipeline="fyre(fmax=0.1)", potential=LJ)
    with pytest.raises(ValueError, match="needs 'fmax'"):
        patoms.simulate(images, pipeline="fire()", potential=LJ)
    with pytest.raises(ValueError):
        patoms.Calculator(potential="lj(epsilon=1)")
    if os.path.exists(CU):
        ar = images[0].copy()
        ar.calc = patoms.Calculator(potential="eam(file=%s)" % CU)
        with pytest.raises(ValueError, match="Ar"):
            ar.get_potential_energy()


def test_simulate_iter_yields_every_system_as_it_finishes_and_stops_when_left():
    images = argon(8)
    pipeline = "fire(fmax=0.01) | nve(dt=5, steps=10)"
    whole = {a.info["id"]: a for a in patoms.simulate(images, pipeline=pipeline, potential=LJ)}
    seen = {}
    for a in patoms.simulate_iter(images, pipeline=pipeline, potential=LJ, ahead=2):
        seen[a.info["id"]] = a
    assert sorted(seen) == sorted(whole)
    for sid, a in seen.items():
        assert np.array_equal(a.positions, whole[sid].positions)
        assert a.info["outcome"] == whole[sid].info["outcome"]
    it = patoms.simulate_iter(argon(20), pipeline="fire(fmax=0.0001) | nve(dt=5, steps=2000)", potential=LJ, ahead=1)
    next(it)
    it.close()
    from java.lang import Thread
    import time
    deadline = time.time() + 30
    while any(str(t.getName()) == "penstock-simulate" for t in Thread.getAllStackTraces().keySet()) and time.time() < deadline:
        time.sleep(0.05)
    assert not any(str(t.getName()) == "penstock-simulate" for t in Thread.getAllStackTraces().keySet())


def test_a_machine_learned_potential_over_a_batch_of_atoms_gives_its_gradient_and_the_stress():
    """SNAP (Ta06A.snap: ZBL overlaid on SNAP, read whole) from Python: the ASE calculator's forces
    are the energy's gradient and its stress the strain derivative (finite differences), and
    simulate() relaxes a batch of ase.Atoms with it."""
    snap = "/usr/share/lammps/potentials/Ta06A.snap"
    if not os.path.exists(snap):
        pytest.skip("lammps-data is not installed") if not os.environ.get("CI") else pytest.fail(snap + " missing")
    potential = "snap(file=%s)" % snap
    ta = bulk("Ta", "bcc", a=3.3, cubic=True).repeat((2, 2, 2))
    ta.rattle(0.08, seed=3)
    ta.calc = patoms.Calculator(potential=potential)
    e0 = ta.get_potential_energy()
    assert -12.5 < e0 / len(ta) < -10.5
    forces_are_the_gradient(ta, potential, ((0, 0), (7, 2)), 1e-6)
    h = 1e-5
    s = ta.get_stress(voigt=False)
    for (a, c) in ((0, 0), (1, 2)):
        eps = np.zeros((3, 3))
        eps[a, c] = eps[c, a] = h / 2 if a != c else h
        energies = []
        for sign in (1, -1):
            b = ta.copy()
            b.set_cell(np.dot(ta.cell.array, np.eye(3) + sign * eps), scale_atoms=True)
            b.calc = patoms.Calculator(potential=potential)
            energies.append(b.get_potential_energy())
        assert abs((energies[0] - energies[1]) / (2 * h) / ta.get_volume() - s[a, c]) < 1e-6
    batch = [ta.copy() for _ in range(3)]
    for k, a in enumerate(batch):
        a.rattle(0.05, seed=10 + k)
    relaxed = patoms.simulate(batch, pipeline="fire(fmax=0.02)", potential=potential)
    assert len(relaxed) == 3
    for a in relaxed:
        assert np.abs(a.get_forces()).max() < 0.02 and a.get_potential_energy() < e0


def test_a_nose_hoover_run_from_python_reports_its_temperature_and_conserved_energy():
    """nvt (a Nosé–Hoover chain, LAMMPS's fix nvt) from Python: each ase.Atoms back with the
    temperature ASE computes from its momenta and the conserved quantity, which keeps."""
    from ase.md.velocitydistribution import MaxwellBoltzmannDistribution, Stationary
    cu = bulk("Cu", cubic=True).repeat(3)
    MaxwellBoltzmannDistribution(cu, temperature_K=600, rng=np.random.default_rng(7))
    Stationary(cu)
    potential = "eam(file=%s)" % CU
    [out] = patoms.simulate([cu], pipeline="nvt(T=300, tdamp=100, dt=2, steps=200)", potential=potential)
    assert out.info["stages"] == "nvt:200"
    # ASE's 3N degrees of freedom; its k_B (ASE 3.22: 8.617330337e-5) is 3.4e-7 from Penstock's (CODATA 2018)
    assert out.info["temperature"] == pytest.approx(out.get_temperature() * ase.units.kB / 8.617333262e-5, rel=1e-12)
    conserved = out.info["conserved_energy"]
    assert abs(out.info["conserved_energy_drift"]) < 1e-3 * abs(conserved)
    assert out.get_temperature() < 500  # the thermostat took the 600 K start towards 300 K


def test_an_npt_run_from_python_returns_each_crystal_in_its_new_cell_at_the_pressure():
    """npt (LAMMPS's fix npt: MTK barostat and Nosé–Hoover thermostat) from Python: each ase.Atoms
    back in the cell the barostat left it, with its pressure (eV/Å³, the kinetic part included)
    and volume in info — the volume ASE computes from the returned cell, the pressure ASE's
    stress and momenta give."""
    from ase.md.velocitydistribution import MaxwellBoltzmannDistribution, Stationary
    cu = bulk("Cu", cubic=True).repeat(3)
    cu.set_cell(cu.cell * 1.01, scale_atoms=True)  # stretched: the barostat shrinks it
    MaxwellBoltzmannDistribution(cu, temperature_K=300, rng=np.random.default_rng(3))
    Stationary(cu)
    potential = "eam(file=%s)" % CU
    [out] = patoms.simulate([cu], pipeline="npt(T=300, P=0, tdamp=100, pdamp=500, dt=2, steps=300)", potential=potential)
    assert out.info["stages"] == "npt:300"
    assert out.get_volume() < cu.get_volume() * 0.995
    assert out.info["volume"] == pytest.approx(out.get_volume(), rel=1e-12)
    # (Σ m v² + tr W) / 3V with W = −σV: ASE's stress is the virial's part
    kinetic = (out.get_momenta() ** 2 / out.get_masses()[:, None]).sum() / (3 * out.get_volume())
    assert out.info["pressure"] == pytest.approx(kinetic - out.get_stress()[:3].mean(), rel=1e-9)
    # the tensor: Σ m v_a v_b / V − ASE's stress (3×3), its trace over 3 the pressure
    p = out.get_momenta()
    kinetic_tensor = (p[:, :, None] * p[:, None, :] / out.get_masses()[:, None, None]).sum(axis=0) / out.get_volume()
    tensor = out.info["pressure_tensor"]
    assert tensor.shape == (3, 3)
    scale = abs(tensor).max()
    assert np.abs(tensor - (kinetic_tensor - out.get_stress(voigt=False))).max() < 1e-9 * scale
    assert np.trace(tensor) / 3 == pytest.approx(out.info["pressure"], rel=1e-12)
    assert abs(out.info["conserved_energy_drift"]) < 1e-3 * abs(out.info["conserved_energy"])


def _strained(atoms, seed):
    """``atoms`` in a stretched, sheared cell, every atom off its site by up to ±0.05 Å."""
    rng = np.random.default_rng(seed)
    strain = np.eye(3) + np.array([[0.02, 0.01, 0.0], [0.0, -0.015, 0.008], [0.004, 0.0, 0.025]])
    a = atoms.copy()
    a.set_cell(a.cell.array @ strain, scale_atoms=True)
    a.positions += rng.uniform(-0.05, 0.05, a.positions.shape)
    return a


@pytest.mark.parametrize("name, potential, pressure_bar", [
    ("copper", "eam(file=%s)" % CU, 0.0),
    ("copper", "eam(file=%s)" % CU, 10000.0),
    ("silicon", "sw(file=/usr/share/lammps/potentials/Si.sw)", 0.0),
    ("silicon", "sw(file=/usr/share/lammps/potentials/Si.sw)", 10000.0),
])
def test_fire_cell_takes_the_steps_of_ases_fire_over_a_unit_cell_filter(name, potential, pressure_bar):
    """fire_cell is ASE 3.22's FIRE(UnitCellFilter(atoms, scalar_pressure=P)) step for step: on a
    strained copper (EAM) and silicon (Stillinger–Weber) crystal at 0 and 10 kbar, with Penstock's
    potential as ASE's calculator, the same number of steps and the final cell within 1e-9 Å."""
    from ase.constraints import UnitCellFilter
    from ase.optimize import FIRE
    start = _strained(bulk("Cu", cubic=True).repeat(2) if name == "copper" else bulk("Si", cubic=True).repeat(2), 5)
    p = pressure_bar / 1.602176634e6  # eV/Å³, as simulate converts it (ASE 3.22's bar is CODATA 2014's, 8e-9 away)
    ase_atoms = start.copy()
    ase_atoms.calc = patoms.Calculator(potential=potential)
    opt = FIRE(UnitCellFilter(ase_atoms, scalar_pressure=p), logfile=None)
    opt.run(fmax=0.01, steps=2000)
    assert 10 < opt.nsteps < 2000
    [out] = patoms.simulate([start], pipeline="fire_cell(fmax=0.01, P=%r)" % pressure_bar, potential=potential)
    assert out.info["stages"] == "fire_cell:%d" % opt.nsteps
    assert out.info["outcome"] == "converged"
    assert np.abs(out.cell.array - ase_atoms.cell.array).max() < 1e-9
    assert np.abs(out.positions - ase_atoms.positions).max() < 1e-9
    # at the pressure: ASE's stress (the virial's part) is −P on the diagonal, to the force criterion's share
    assert np.abs(out.get_stress()[:3] + p).max() < 0.01 * len(out) / out.get_volume()


def _fire2(ucf, masses, fmax, steps):
    """FIRE 2.0 (Guénolé et al. 2020, semi-implicit Euler; Penstock's `fire2` constants) over an
    ASE filter's degrees of freedom, written here from the paper: the reference `fire2_cell` is
    held to. Returns the steps taken."""
    x = ucf.get_positions()
    v = np.zeros_like(x)
    last = np.zeros_like(x)
    dt, a, npos, k = 0.1, 0.25, 0, 0
    while True:
        f = ucf.get_forces()
        if np.sqrt((f ** 2).sum(axis=1).max()) < fmax or k >= steps:
            return k
        x = ucf.get_positions()
        if k == 0:
            v[:] = 0
            last[:] = 0
        p = np.sum(f * v)
        if p > 0:
            npos += 1
            if npos > 20:
                dt, a = min(dt * 1.1, 1.0), a * 0.99
        else:
            npos = 0
            if k >= 20:
                dt, a = max(dt * 0.5, 0.002), 0.25
            x = x - 0.5 * last
            v[:] = 0
        v = v + dt * f / masses[:, None]
        nf, nv = np.sqrt(np.sum(f * f)), np.sqrt(np.sum(v * v))
        v = (1 - a) * v + (a * f / nf * nv if nf > 0 else 0)
        dr = dt * v
        norm = np.sqrt(np.sum(dr * dr))
        last = dr * (0.2 / norm if norm > 0.2 else 1)
        x = x + last
        ucf.set_positions(x)
        k += 1


@pytest.mark.parametrize("pressure_bar", [0.0, 10000.0])
def test_fire2_cell_takes_the_steps_of_fire2_over_ases_unit_cell_filter(pressure_bar):
    """fire2_cell is FIRE 2.0 over ASE's UnitCellFilter (the cell's three rows weighing the mean
    atomic mass): on the strained silicon crystal (Stillinger–Weber) at 0 and 10 kbar, the steps
    of a FIRE 2.0 written here from the paper and the final cell within 1e-9 Å."""
    from ase.constraints import UnitCellFilter
    potential = "sw(file=/usr/share/lammps/potentials/Si.sw)"
    start = _strained(bulk("Si", cubic=True).repeat(2), 7)
    p = pressure_bar / 1.602176634e6
    ase_atoms = start.copy()
    ase_atoms.calc = patoms.Calculator(potential=potential)
    masses = np.concatenate([ase_atoms.get_masses(), [ase_atoms.get_masses().mean()] * 3])
    steps = _fire2(UnitCellFilter(ase_atoms, scalar_pressure=p), masses, 0.01, 3000)
    assert 10 < steps < 3000
    [out] = patoms.simulate([start], pipeline="fire2_cell(fmax=0.01, P=%r, steps=3000)" % pressure_bar, potential=potential)
    assert out.info["stages"] == "fire2_cell:%d" % steps
    assert np.abs(out.cell.array - ase_atoms.cell.array).max() < 1e-9
    assert np.abs(out.positions - ase_atoms.positions).max() < 1e-9


def test_lennard_jones_gives_ase_the_stress_of_its_energys_strain_derivative():
    """The pair potentials' virial (summed when asked: the calculator asks, as a barostat does)
    is ASE's stress: against ASE's own central differences of the energy under strain."""
    ar = bulk("Ar", "fcc", a=5.26, cubic=True).repeat(3)
    ar.rattle(0.05, seed=2)
    ar.set_cell(ar.cell.array + np.array([[0, 0, 0], [0.4, 0, 0], [0.2, -0.3, 0]]), scale_atoms=True)
    ar.calc = patoms.Calculator(potential="lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)")
    numeric = ar.calc.calculate_numerical_stress(ar, d=1e-6)
    np.testing.assert_allclose(ar.get_stress(), numeric, atol=1e-8)
    assert np.abs(ar.get_stress()).max() > 1e-5
