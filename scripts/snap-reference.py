#!/usr/bin/python3
"""Reference energies, forces and virials of LAMMPS's published SNAP and ML-IAP models, computed by
LAMMPS itself built with ML-SNAP and ML-IAP (scripts/build-lammps-ml.sh), on perturbed periodic
(orthorhombic and triclinic) and free structures of each model's elements. Each case is written as
an extended XYZ (ASE's units: energy eV, forces eV/Å, the virial in eV as info `virial`, 9 values
row-major, W_ab = sum over pairs of (r_i - r_j)_a (F_ij)_b), with the LAMMPS pair lines it ran in
info `lammps_pair`, for the Java tests to hold Penstock's models to.

  scripts/snap-reference.py [LMP] [OUT_DIR]
    LMP defaults to $(scripts/build-lammps-ml.sh); OUT_DIR to atoms/src/test/resources/snap
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from ase import Atoms
from ase.data import atomic_masses, atomic_numbers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POTENTIALS = "/usr/share/lammps/potentials"
SNAP_EXAMPLES = "/usr/share/lammps/examples/snap"
MLIAP_EXAMPLES = "/usr/share/lammps/examples/mliap"
NKTV2P = 1.6021765e6  # LAMMPS metal units: bar·Å³ per eV


def find(name):
    for d in (POTENTIALS, SNAP_EXAMPLES, MLIAP_EXAMPLES):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise SystemExit(f"snap-reference: {name} is in none of {POTENTIALS}, {SNAP_EXAMPLES}, {MLIAP_EXAMPLES}")


def lattice(kind, a, reps, symbols, tilt=0.0, seed=1, noise=0.1, periodic=True):
    """A perturbed crystal with a lower-triangular cell (LAMMPS's convention: no rotation needed)."""
    basis = {"bcc": [(0, 0, 0), (0.5, 0.5, 0.5)],
             "fcc": [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)],
             "zincblende": [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5),
                            (0.25, 0.25, 0.25), (0.75, 0.75, 0.25), (0.75, 0.25, 0.75), (0.25, 0.75, 0.75)]}[kind]
    rng = np.random.default_rng(seed)
    pos, sym = [], []
    for x in range(reps):
        for y in range(reps):
            for z in range(reps):
                for k, b in enumerate(basis):
                    f = (np.array([x, y, z]) + b) / reps
                    pos.append(f)
                    sym.append(symbols[0] if kind != "zincblende" or k < 4 else symbols[1])
    cell = np.array([[reps * a, 0, 0], [tilt, reps * a, 0], [0, 0, reps * a]])
    r = np.array(pos) @ cell + rng.uniform(-noise, noise, (len(pos), 3))
    if kind != "zincblende" and len(symbols) > 1:  # an alloy: every other site the second element
        sym = [symbols[i % 2] for i in range(len(sym))]
    atoms = Atoms(sym, positions=r, cell=cell, pbc=periodic)
    if not periodic:
        atoms.cell = None
        atoms.pbc = False
    return atoms


def link_potentials(d):
    """Every file a LAMMPS definition may name, linked into `d` by its name (as LAMMPS finds them
    in its working directory)."""
    for place in (MLIAP_EXAMPLES, SNAP_EXAMPLES, POTENTIALS):
        for name in os.listdir(place):
            if not os.path.exists(os.path.join(d, name)):
                os.symlink(os.path.join(place, name), os.path.join(d, name))


def data_file(path, atoms, species):
    n = len(atoms)
    r = atoms.positions
    lines = ["LAMMPS data file (Penstock SNAP reference)", "", f"{n} atoms", f"{len(species)} atom types", ""]
    if atoms.pbc.any():
        c = atoms.cell.array
        lines += [f"0 {c[0, 0]!r} xlo xhi", f"0 {c[1, 1]!r} ylo yhi", f"0 {c[2, 2]!r} zlo zhi"]
        if c[1, 0] != 0:
            lines += [f"{c[1, 0]!r} 0 0 xy xz yz"]
    else:
        lo, hi = r.min(axis=0) - 10, r.max(axis=0) + 10
        lines += [f"{lo[d]!r} {hi[d]!r} {'xyz'[d]}lo {'xyz'[d]}hi" for d in range(3)]
    lines += ["", "Masses", ""] + [f"{k + 1} {atomic_masses[atomic_numbers[s]]!r}" for k, s in enumerate(species)]
    lines += ["", "Atoms # atomic", ""]
    for i, (s, p) in enumerate(zip(atoms.get_chemical_symbols(), r)):
        lines.append(f"{i + 1} {species.index(s) + 1} {p[0]!r} {p[1]!r} {p[2]!r}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run(lmp, atoms, species, pair_lines, files):
    with tempfile.TemporaryDirectory() as d:
        link_potentials(d)
        data_file(os.path.join(d, "data.in"), atoms, species)
        boundary = "p p p" if atoms.pbc.all() else "s s s"
        script = "\n".join(["units metal", "atom_style atomic", "atom_modify map array", f"boundary {boundary}", "read_data data.in",
                            *pair_lines, "neighbor 1.0 bin", "compute v all pressure NULL virial",
                            "thermo_style custom step pe vol c_v[1] c_v[2] c_v[3] c_v[4] c_v[5] c_v[6]",
                            "thermo_modify format float %.17g", "dump d all custom 1 forces.dump id fx fy fz",
                            "dump_modify d format float %.17g sort id", "run 0", ""])
        with open(os.path.join(d, "in.ref"), "w") as f:
            f.write(script)
        out = subprocess.run([lmp, "-in", "in.ref", "-log", "log.lammps", "-screen", "none"], cwd=d, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"snap-reference: LAMMPS failed: {out.stdout}{out.stderr}")
        log = open(os.path.join(d, "log.lammps")).read().splitlines()
        head = next(i for i, l in enumerate(log) if l.split()[:2] == ["Step", "PotEng"])
        values = [float(x) for x in log[head + 1].split()]
        energy, volume, p6 = values[1], values[2], values[3:9]
        dump = open(os.path.join(d, "forces.dump")).read().splitlines()
        at = next(i for i, l in enumerate(dump) if l.startswith("ITEM: ATOMS"))
        forces = np.zeros((len(atoms), 3))
        for line in dump[at + 1:at + 1 + len(atoms)]:
            t = line.split()
            forces[int(t[0]) - 1] = [float(x) for x in t[1:4]]
    virial = None
    if atoms.pbc.all():
        w = [p * volume / NKTV2P for p in p6]  # xx yy zz xy xz yz
        virial = [w[0], w[3], w[4], w[3], w[1], w[5], w[4], w[5], w[2]]
    return energy, forces, virial


def main():
    lmp = sys.argv[1] if len(sys.argv) > 1 else subprocess.run([os.path.join(ROOT, "scripts", "build-lammps-ml.sh")], capture_output=True,
                                                                text=True, check=True).stdout.strip()
    out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "atoms", "src", "test", "resources", "snap")
    os.makedirs(out_dir, exist_ok=True)

    def snap(model, elements, extra=()):
        return ([f"pair_style snap", f"pair_coeff * * {model}.snapcoeff {model}.snapparam {' '.join(elements)}"],
                [f"{model}.snapcoeff", f"{model}.snapparam", *extra])

    def mliap(model, descriptor, kind, elements):
        return ([f"pair_style mliap model {kind} {model} descriptor sna {descriptor}", f"pair_coeff * * {' '.join(elements)}"],
                [model, descriptor])

    cases = []
    for name, kind, a, syms, model in [("Ta06A", "bcc", 3.316, ["Ta"], "Ta06A"), ("W_2940_2017_2", "bcc", 3.1803, ["W"], "W_2940_2017_2"),
                                       ("Mo_Chen", "bcc", 3.147, ["Mo"], "Mo_Chen_PRM2017"),
                                       ("Cu_Zuo", "fcc", 3.62, ["Cu"], "Cu_Zuo_JPCA2020"),
                                       ("Cu_Zuo_quadratic", "fcc", 3.62, ["Cu"], "Cu_Zuo_JPCA2020.quadratic"),
                                       ("InP", "zincblende", 5.869, ["In", "P"], "InP_JCPA2020"),
                                       ("WBe", "bcc", 3.1803, ["W", "Be"], "WBe_Wood_PRB2019")]:
        pair, files = snap(model, syms)
        cases.append((f"{name}_periodic", lattice(kind, a, 3 if kind != "zincblende" else 2, syms, seed=1), syms, pair, files))
        cases.append((f"{name}_triclinic", lattice(kind, a, 3 if kind != "zincblende" else 2, syms, tilt=0.35 * a, seed=2), syms, pair, files))
        cases.append((f"{name}_free", lattice(kind, a, 2, syms, seed=3, periodic=False), syms, pair, files))
    # whole definitions as users include them (ZBL overlaid on SNAP or ML-IAP), on compressed
    # crystals whose nearest neighbours are inside the ZBL range
    for file, kind, a, syms in [("Ta06A.snap", "bcc", 3.316, ["Ta"]), ("Ta06A.mliap", "bcc", 3.316, ["Ta"]),
                                ("Ta06A.nn.mliap", "bcc", 3.316, ["Ta"]), ("W.quadratic.mliap", "bcc", 3.1803, ["W"]),
                                ("InP_JCPA2020.mliap", "zincblende", 5.869, ["In", "P"]),
                                ("WBe_Wood_PRB2019.mliap", "bcc", 3.1803, ["W", "Be"])]:
        compressed = lattice(kind, 0.85 * a, 3 if kind != "zincblende" else 2, syms, seed=4)
        cases.append((f"{file}_compressed", compressed, syms, [f"include {file}"], []))
    # ML-IAP: neural networks on the SNAP descriptor
    for name, kind, a, syms, model, descriptor in [("Cu_nn", "fcc", 3.62, ["Cu"], "Cu.nn.mliap.model", "Cu.snap.mliap.descriptor"),
                                                   ("Ta06A_nn", "bcc", 3.316, ["Ta"], "Ta06A.nn.mliap.model", "Ta06A.mliap.descriptor")]:
        pair, files = mliap(model, descriptor, "nn", syms)
        cases.append((f"{name}_periodic", lattice(kind, a, 3, syms, seed=5), syms, pair, files))
        cases.append((f"{name}_free", lattice(kind, a, 2, syms, seed=6, periodic=False), syms, pair, files))

    nve(lmp, out_dir)
    for name, atoms, species, pair, files in cases:
        energy, forces, virial = run(lmp, atoms, species, pair, files)
        path = os.path.join(out_dir, f"{name}.xyz")
        write_exact(path, atoms, energy, forces, virial, " | ".join(pair))
        print(f"{name}: {len(atoms)} atoms, energy {energy!r} eV, max |F| {np.abs(forces).max():.4g} eV/Å -> {path}")


def nve(lmp, out_dir):
    """100 NVE steps of hot bcc tantalum under Ta06A.snap (ZBL + SNAP) from LAMMPS's own start:
    the start (nve_Ta06A.data, with velocities) and the total energy of every step
    (nve_Ta06A.etotal), for the Java test to integrate the same start and compare."""
    with tempfile.TemporaryDirectory() as d:
        link_potentials(d)
        script = "\n".join(["units metal", "atom_style atomic", "lattice bcc 3.316", "region box block 0 3 0 3 0 3", "create_box 1 box",
                            "create_atoms 1 box", "mass 1 180.88", "include Ta06A.snap", "velocity all create 1500.0 4928459 loop geom",
                            "neighbor 1.0 bin", "neigh_modify delay 0 every 1 check yes", "timestep 0.001", "fix 1 all nve",
                            "write_data start.data", "thermo 1", "thermo_style custom step pe ke etotal", "thermo_modify format float %.17g",
                            "run 100", ""])
        with open(os.path.join(d, "in.nve"), "w") as f:
            f.write(script)
        out = subprocess.run([lmp, "-in", "in.nve", "-log", "log.lammps", "-screen", "none"], cwd=d, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"snap-reference: LAMMPS failed: {out.stdout}{out.stderr}")
        log = open(os.path.join(d, "log.lammps")).read().splitlines()
        head = next(i for i, l in enumerate(log) if l.split()[:2] == ["Step", "PotEng"])
        etotal = [log[head + 1 + k].split()[3] for k in range(101)]
        with open(os.path.join(out_dir, "nve_Ta06A.etotal"), "w") as f:
            f.write("\n".join(etotal) + "\n")
        with open(os.path.join(d, "start.data")) as src, open(os.path.join(out_dir, "nve_Ta06A.data"), "w") as dst:
            dst.write(src.read())
    print(f"nve_Ta06A: 54 atoms, 100 steps -> {out_dir}/nve_Ta06A.data, nve_Ta06A.etotal")


def write_exact(path, atoms, energy, forces, virial, pair):
    """Extended XYZ with every number as Python's repr (the shortest string that reads back to the
    same double: ASE's writer keeps 8 decimals, too few for the tests' bounds)."""
    comment = []
    if atoms.pbc.all():
        comment.append('Lattice="' + " ".join(repr(float(x)) for x in atoms.cell.array.reshape(9)) + '"')
    comment.append("Properties=species:S:1:pos:R:3:forces:R:3")
    comment.append(f"energy={energy!r}")
    if virial is not None:
        comment.append('virial="' + " ".join(repr(float(x)) for x in virial) + '"')
    comment.append(f'lammps_pair="{pair}"')
    comment.append('pbc="T T T"' if atoms.pbc.all() else 'pbc="F F F"')
    lines = [str(len(atoms)), " ".join(comment)]
    for s, p, f in zip(atoms.get_chemical_symbols(), atoms.positions, forces):
        lines.append(" ".join([s] + [repr(float(x)) for x in p] + [repr(float(x)) for x in f]))
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
