#!/usr/bin/python3
"""Penstock's "nothing lost" campaign: runs the CLI as a new user would, with bad inputs, bad
options, interruptions and full disks, and sorts every outcome into

  result   exit 0 and an output that NumPy / zarr-python / ASE reads with the expected shape
  error    a clear user error: the exit code the case expects, exactly one "penstock …" line on
           stderr, no stack trace
  BAD      anything else: a trace, a hang, a wrong code, an input or a previous output changed,
           a temporary left beside an output, an output that loads as complete after a failure

Every case protects files (inputs, the previous output) by checksum. The target is 0 BAD.

  scripts/reliability-campaign.py            (builds with ./penstock first; about 5 minutes)
  scripts/reliability-campaign.py --quick    (one case of each family)
  scripts/reliability-campaign.py --only sidecar,flink   (the families whose function names contain these)

Needs /usr/bin/python3 with NumPy and zarr (python3-numpy python3-zarr), ASE for the simulate
cases (python3-ase), h5py for the HDF5 cases (python3-h5py), and root for the full-disk cases (a tmpfs; skipped
otherwise). Families since 2026-12-04: output sets (sidecars checked first and committed with OUT, two runs on one
OUT), Flink (a failing worker leaves nothing running or leased, no working file in java.io.tmpdir, a user's
OUT.parts/ kept, full disks), readers (HDF5 fill values, subnormal rows, .npy dtypes, mixed extended-XYZ ids).
"""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK = "--quick" in sys.argv
LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)"
results = []


def java_cmd():
    subprocess.run([os.path.join(ROOT, "penstock"), "--version"], check=True, capture_output=True)
    java = None
    for c in [os.environ.get("JAVA_HOME", ""), "/usr/lib/jvm/temurin-25-jdk-amd64"]:
        if c and os.path.exists(os.path.join(c, "bin", "java")):
            java = os.path.join(c, "bin", "java")
            break
    lib = os.path.join(ROOT, "cli", "target", "lib", "*")
    jar = os.path.join(ROOT, "cli", "target", "penstock-cli.jar")
    return [java, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "--add-modules",
            "jdk.incubator.vector", "-cp", jar + ":" + lib, "dev.penstock.cli.Main"]


JAVA = java_cmd()


def digest(path):
    if not os.path.exists(path):
        return None
    if os.path.isdir(path):
        h = hashlib.sha256()
        for d, _, files in sorted(os.walk(path)):
            for f in sorted(files):
                p = os.path.join(d, f)
                h.update(os.path.relpath(p, path).encode())
                h.update(open(p, "rb").read())
        return h.hexdigest()
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def temporaries(d):
    out = []
    for dd, dirs, files in os.walk(d):
        out += [os.path.join(dd, n) for n in dirs + files if ".penstock-" in n]
    return out


def record(family, name, kind, why=""):
    results.append((family, name, kind, why))
    mark = "BAD " if kind == "BAD" else kind.ljust(4)
    print(f"  {mark} {family}: {name}{(' — ' + why) if why else ''}", flush=True)


def run(args, cwd, timeout=180, kill_after=None, sig=None, jvm=()):
    """Runs the CLI; returns (code, stdout+stderr). kill_after: seconds before sending sig; jvm: extra JVM options."""
    p = subprocess.Popen(JAVA[:1] + list(jvm) + JAVA[1:] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if kill_after is not None:
        time.sleep(kill_after)
        p.send_signal(sig)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        return "hang", out.decode(errors="replace")
    return p.returncode, out.decode(errors="replace")


def judge(family, name, args, cwd, expect, protect=(), check=None, out=None, **kw):
    """expect: 0 (a result, checked by check(out)) or the set of acceptable error codes."""
    before = {p: digest(p) for p in protect}
    code, text = run(args, cwd, **kw)
    lines = [l for l in text.splitlines() if not l.startswith("WARNING:")]
    penstock = [l for l in lines if l.startswith("penstock")]
    traced = any(l.startswith("\tat ") for l in lines)
    changed = [p for p in protect if digest(p) != before[p]]
    left = temporaries(cwd) if code != -9 else []
    why = []
    if code == "hang":
        why.append("hung")
    if changed:
        why.append("changed " + ", ".join(os.path.basename(c) for c in changed))
    if left:
        why.append("left " + ", ".join(os.path.basename(t) for t in left))
    if traced:
        why.append("stack trace")
    noise = [l for l in lines if "did not stop" in l or "still leased" in l]
    if noise:
        why.append("left running or leased: " + noise[0][:80])
    if expect == 0:
        if code != 0:
            why.append(f"exit {code}: {penstock[-1] if penstock else lines[-1:]}")
        elif check is not None:
            try:
                problem = check(out)
            except Exception as e:  # the output does not even load
                problem = f"output unreadable: {e}"
            if problem:
                why.append(problem)
        record(family, name, "BAD" if why else "result", "; ".join(why))
        return
    if code not in expect:
        why.append(f"exit {code}, expected {sorted(expect)}")
    if code == 4 and "quarantined systems written to" not in text:
        why.append("exit 4 without the quarantined systems' file")
    if code not in (-9, 137, 0, 4) and len(penstock) != 1:
        why.append(f"{len(penstock)} penstock lines: {penstock[:3]}")
    if out is not None and code != 0 and not protect and os.path.exists(out) and code not in (-9,):
        why.append("an output exists after a failure")
    kind = "BAD" if why else "result" if code == 0 else "error"  # a case that may succeed and did is a result
    record(family, name, kind, "; ".join(why) if why else (penstock[0][:110] if penstock else ""))


def npy_rows(path, rows, width, nan_rows=(), dtype="<f8"):
    a = (np.sin(np.arange(rows * width, dtype=np.float64).reshape(rows, max(width, 1))[:, :width]) + 2).astype(dtype)
    for r in nan_rows:
        a[r, 0] = np.nan
    np.save(path, a)
    return path


def states_ok(rows, qubits):
    def check(out):
        s = np.load(out, mmap_mode="r") if out.endswith(".npy") else None
        if out.endswith(".zarr"):
            import zarr
            g = zarr.open(out, mode="r")
            s = g["states"]
            if g["rows"].shape[0] != rows:
                return f"rows array holds {g['rows'].shape[0]}, expected {rows}"
        elif np.load(out + ".rows.npy").shape != (rows,):
            return "OUT.rows.npy has the wrong shape"
        if s.shape != (rows, 2 ** qubits):
            return f"shape {s.shape}, expected {(rows, 2 ** qubits)}"
        norms = np.sum(np.abs(np.asarray(s[:min(rows, 64)])) ** 2, axis=1)
        if rows and not np.allclose(norms, 1, atol=1e-5):
            return "states are not normalised"
        return None
    return check


def encode_cases(w):
    fam = "encode input"
    good = npy_rows(os.path.join(w, "good.npy"), 64, 8)
    raw = open(good, "rb").read()
    prev = os.path.join(w, "prev.npy")
    judge(fam, "good input", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", prev], w, 0,
          check=states_ok(64, 3), out=prev)
    corruptions = {
        "empty file": b"",
        "wrong magic": b"\x93NUMPX" + raw[6:],
        "version 9": raw[:6] + b"\x09\x00" + raw[8:],
        "header length past the end": raw[:8] + b"\xff\xff" + raw[10:],
        "no shape key": raw.replace(b"'shape'", b"'shapf'"),
        "shape 2^62 rows": raw.replace(b"(64, 8)", b"(4611686018427387903, 8)"),
        "negative shape": raw.replace(b"(64, 8)", b"(-64, 8)"),
        "text in shape": raw.replace(b"(64, 8)", b"(6a, 8)"),
        "3-d shape": raw.replace(b"(64, 8)", b"(8, 8, 8)"),
        "dtype <i8": raw.replace(b"<f8", b"<i8"),
        "dtype |O": raw.replace(b"'<f8'", b"'|O' "),
        "fortran order": raw.replace(b"False", b"True "),
    }
    for cut in ([5, 9, 60, 127, 128, 300, len(raw) - 1] if not QUICK else [60]):
        corruptions[f"truncated at byte {cut}"] = raw[:cut]
    for i, (name, data) in enumerate(corruptions.items()):
        if QUICK and i > 2:
            break
        f = os.path.join(w, f"bad{i}.npy")
        open(f, "wb").write(data)
        for mode in ["fail", "skip"]:
            judge(fam, f"{name} ({mode})", ["encode", f, "--encoding", "amplitude", "--qubits", "3", "--out", prev,
                                            "--on-bad-row", mode], w, {2, 3}, protect=[prev, f], out=None)
        judge("inspect", name, ["inspect", f], w, {0, 2, 3}, protect=[f])  # a still-valid .npy is described
    zero = os.path.join(w, "zero-width.npy")
    np.save(zero, np.zeros((5, 0)))
    judge(fam, "(5, 0) rows", ["encode", zero, "--encoding", "amplitude", "--qubits", "3", "--out", prev], w, {2, 3},
          protect=[prev])
    nan = npy_rows(os.path.join(w, "nan.npy"), 40, 8, nan_rows=[7, 30])
    judge(fam, "NaN rows, fail mode", ["encode", nan, "--encoding", "amplitude", "--qubits", "3", "--out", prev], w, {3},
          protect=[prev, nan])
    skip_out = os.path.join(w, "skipped.npy")
    judge(fam, "NaN rows, skip mode", ["encode", nan, "--encoding", "amplitude", "--qubits", "3", "--out", skip_out,
                                       "--on-bad-row", "skip"], w, 0, protect=[nan], check=states_ok(38, 3), out=skip_out)
    for enc, q in [("angle", 4), ("basis", 3), ("phase", 3), ("iqp", 3), ("iqp-z", 3)]:
        f = npy_rows(os.path.join(w, f"{enc}.npy"), 20, {"angle": 4, "basis": 1, "phase": 3, "iqp": 6, "iqp-z": 3}[enc],
                     nan_rows=[3])
        o = os.path.join(w, f"{enc}-out.npy")
        judge(fam, f"{enc}: NaN row, skip", ["encode", f, "--encoding", enc, "--qubits", str(q), "--out", o, "--on-bad-row",
                                             "skip"], w, 0, protect=[f], check=None, out=o)
        judge(fam, f"{enc}: NaN row, fail", ["encode", f, "--encoding", enc, "--qubits", str(q), "--out", prev], w, {3},
              protect=[f, prev])
    for name, data in [("garbage", b"PAR1 not parquet PAR1"), ("empty", b""), ("half a footer", b"\x00" * 50 + b"PAR1")]:
        f = os.path.join(w, f"{name.replace(' ', '-')}.parquet")
        open(f, "wb").write(data)
        judge("encode parquet", name, ["encode", f, "--encoding", "angle", "--qubits", "2", "--out", prev], w, {2, 3},
              protect=[prev, f])
        judge("inspect", f"parquet {name}", ["inspect", f], w, {2, 3}, protect=[f])


def option_cases(w):
    fam = "options"
    good = npy_rows(os.path.join(w, "good.npy"), 16, 8)
    prev = os.path.join(w, "prev.npy")
    run(["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", prev], w)
    base = ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", prev]
    bad = [
        ("--qubits 0", ["--qubits", "0"]), ("--qubits 31", ["--qubits", "31"]), ("--qubits abc", ["--qubits", "abc"]),
        ("--encoding bogus", ["--encoding", "bogus"]), ("--precision f16", ["--precision", "f16"]),
        ("--rows-per-chunk 0", ["--rows-per-chunk", "0"]), ("--rows-per-chunk -3", ["--rows-per-chunk", "-3"]),
        ("--io-threads 0", ["--io-threads", "0"]), ("--on-bad-row maybe", ["--on-bad-row", "maybe"]),
        ("--out .txt", ["--out", os.path.join(w, "s.txt")]), ("--device tpu", ["--device", "tpu"]),
        ("--device cuda:7 (no GPU)", ["--device", "cuda:7"]), ("--qubits 30 on 16 rows", ["--qubits", "30"]),
        ("unknown option", ["--frobnicate"]), ("--timeline in /proc", ["--timeline", "/proc/no/t.png"]),
    ]
    for i, (name, extra) in enumerate(bad):
        if QUICK and i > 3:
            break
        args = list(base)
        for k in range(0, len(extra), 2):
            opt = extra[k]
            if opt in args and k + 1 < len(extra):
                args[args.index(opt) + 1] = extra[k + 1]
            else:
                args += extra[k:k + 2]
        judge(fam, name, args, w, {2, 5}, protect=[prev, good])
    judge(fam, "missing INPUT", ["encode", "--encoding", "amplitude", "--qubits", "3", "--out", prev], w, {2}, protect=[prev])
    judge(fam, "no such INPUT", ["encode", os.path.join(w, "nope.npy"), "--encoding", "amplitude", "--qubits", "3", "--out",
                                 prev], w, {2}, protect=[prev])
    judge(fam, "INPUT .csv", ["encode", os.path.join(w, "x.csv"), "--encoding", "amplitude", "--qubits", "3", "--out", prev],
          w, {2}, protect=[prev])
    for n in ["0", "-5", "2147483648", "abc"]:
        judge(fam, f"--example {n}", ["encode", "--example", n, "--encoding", "angle", "--qubits", "3", "--out", prev,
                                      os.path.join(w, "ex.npy")], w, {2}, protect=[prev])
    judge(fam, "--example over an existing file", ["encode", good, "--example", "10", "--encoding", "angle", "--qubits", "3",
                                                   "--out", os.path.join(w, "e.npy")], w, {2}, protect=[good])
    judge(fam, "--example over a .parquet", ["encode", os.path.join(w, "u.parquet"), "--example", "10", "--encoding",
                                             "angle", "--qubits", "3", "--out", os.path.join(w, "e.npy")], w, {2})
    os.makedirs(os.path.join(w, "target"), exist_ok=True)
    users = npy_rows(os.path.join(w, "target", "example-rows.npy"), 4, 8)
    judge(fam, "--example over a user's file at the example path", ["encode", "--example", "10", "--encoding", "amplitude",
                                                                    "--qubits", "3", "--out", os.path.join(w, "e.npy")],
          w, {2}, protect=[users])
    os.remove(users)
    judge(fam, "--example twice at the example path", ["encode", "--example", "10", "--encoding", "amplitude", "--qubits",
                                                       "3", "--out", os.path.join(w, "e2.npy")], w, 0,
          check=states_ok(10, 3), out=os.path.join(w, "e2.npy"))
    judge(fam, "--example twice at the example path (again)", ["encode", "--example", "12", "--encoding", "amplitude",
                                                               "--qubits", "3", "--out", os.path.join(w, "e2.npy")], w, 0,
          check=states_ok(12, 3), out=os.path.join(w, "e2.npy"))
    dry = os.path.join(w, "dry", "s.npy")
    code, text = run(["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", dry, "--dry-run"], w)
    record(fam, "--dry-run creates nothing", "result" if code == 0 and not os.path.exists(os.path.dirname(dry))
           and "plan:" in text else "BAD", "" if code == 0 else text[-200:])
    judge("inspect", "unknown type", ["inspect", os.path.join(w, "notes.txt")], w, {2})
    judge("inspect", "missing file", ["inspect", os.path.join(w, "missing.npy")], w, {2})


def output_cases(w):
    fam = "outputs"
    good = npy_rows(os.path.join(w, "good.npy"), 16, 8)
    judge(fam, "OUT is INPUT", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", good], w, {2},
          protect=[good])
    link = os.path.join(w, "link.npy")
    os.symlink(good, link)
    judge(fam, "OUT is a symlink to INPUT", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", link], w,
          {2}, protect=[good])
    hard = os.path.join(w, "hard.npy")
    os.link(good, hard)
    judge(fam, "OUT is a hard link to INPUT", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", hard], w,
          {2}, protect=[good])
    judge(fam, "OUT spelled ./x/../good.npy", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out",
                                               os.path.join(w, ".", "good.npy")], w, {2}, protect=[good])
    os.makedirs(os.path.join(w, "isdir.npy"))
    judge(fam, "OUT is a directory", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out",
                                      os.path.join(w, "isdir.npy")], w, {2, 5}, protect=[good])
    store = os.path.join(w, "mine.zarr")
    os.makedirs(store)
    open(os.path.join(store, "NOTES.txt"), "w").write("my notes")
    judge(fam, "OUT .zarr holds user files", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", store],
          w, {5}, protect=[store, good])
    z = os.path.join(w, "s.zarr")
    judge(fam, "new .zarr", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", z], w, 0,
          check=states_ok(16, 3), out=z)
    short = npy_rows(os.path.join(w, "short.npy"), 5, 8)
    judge(fam, ".zarr rewritten shorter", ["encode", short, "--encoding", "amplitude", "--qubits", "3", "--out", z], w, 0,
          check=states_ok(5, 3), out=z)
    uni = npy_rows(os.path.join(w, "données-Å.npy"), 5, 8)
    z2 = os.path.join(w, "u.zarr")

    def attrs_ok(out):
        import zarr
        g = zarr.open(out, mode="r")
        return None if g.attrs["source"] == "données-Å.npy" else f"source attribute {g.attrs['source']!r}"
    judge(fam, "non-ASCII input name in .zarr attrs", ["encode", uni, "--encoding", "amplitude", "--qubits", "3", "--out",
                                                       z2], w, 0, check=attrs_ok, out=z2)
    nested = os.path.join(w, "new", "deeper", "s.npy")
    judge(fam, "OUT in a new folder", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", nested], w, 0,
          check=states_ok(16, 3), out=nested)


def interrupt_cases(w):
    fam = "interrupts"
    big = npy_rows(os.path.join(w, "big.npy"), 20000, 78)
    for out_name in ["states.npy", "states.zarr"]:
        for sig, name, codes in [(signal.SIGINT, "SIGINT", {130}), (signal.SIGTERM, "SIGTERM", {143}),
                                 (signal.SIGKILL, "SIGKILL", {-9})]:
            for after in ([1.5, 3.0] if not QUICK else [2.0]):
                out = os.path.join(w, out_name)
                small = npy_rows(os.path.join(w, "small.npy"), 3, 78)
                run(["encode", small, "--encoding", "iqp", "--qubits", "12", "--out", out], w)
                judge(fam, f"{name} after {after} s, {out_name}", ["encode", big, "--encoding", "iqp", "--qubits", "12",
                                                                  "--out", out], w, codes | {0}, protect=[big],
                      kill_after=after, sig=sig)
                # whatever the moment: OUT is the previous output or the complete new one
                try:
                    n = np.load(out).shape[0] if out.endswith(".npy") else __import__("zarr").open(out, "r")["states"].shape[0]
                    ok = n in (3, 20000)
                except Exception as e:
                    ok, n = False, e
                record(fam, f"{name} after {after} s, {out_name}: OUT complete", "result" if ok else "BAD",
                       "" if ok else f"OUT holds {n}")
                for t in temporaries(w):  # a SIGKILL leaves a hidden temporary; the next run removes it
                    shutil.rmtree(t, ignore_errors=True) if os.path.isdir(t) else os.remove(t)


def simulate_cases(w):
    fam = "simulate"
    ex = os.path.join(ROOT, "examples", "argon-clusters.xyz")
    prev = os.path.join(w, "prev.xyz")
    run(["simulate", ex, "--pipeline", "fire(steps=50)", "--potential", LJ, "--out", prev], w)
    specs = ["nve(dt=0, steps=10)", "nve(dt=-5, steps=10)", "langevin(T=-5, dt=1, steps=10)",
             "langevin(T=300, dt=1, steps=10, friction=-1)", "fire(fmax=0)", "fire(fmax=-1)", "nve(dt=NaN, steps=3)",
             "nve(dt=1)", "nvt(dt=1, steps=3)", "fire(fmax=0.1) ++ nve(dt=1, steps=3)", "fire(fmax=0.1, steps=2.5)",
             "fire(fmax=0.1", ""]
    for s in specs[: 3 if QUICK else None]:
        judge(fam, f"--pipeline {s!r}", ["simulate", ex, "--pipeline", s, "--potential", LJ, "--out", prev], w, {2},
              protect=[prev])
    for p in ["lj(epsilon=-1, sigma=3.4, cutoff=8.5)", "lj(sigma=3.4)", "morse(depth=1)", "eam(file=x)", "lj(epsilon=1"]:
        judge(fam, f"--potential {p!r}", ["simulate", ex, "--pipeline", "fire(fmax=0.1)", "--potential", p, "--out", prev],
              w, {2}, protect=[prev])
    for opt, val in [("--max-atoms", "0"), ("--max-systems", "0"), ("--refill-every", "0"), ("--mode", "turbo"),
                     ("--runner", "spark"), ("--max-step", "-1")]:
        judge(fam, f"{opt} {val}", ["simulate", ex, "--pipeline", "fire(fmax=0.1)", "--potential", LJ, "--out", prev, opt,
                                    val], w, {2}, protect=[prev])
    judge(fam, "OUT is INPUT", ["simulate", ex, "--pipeline", "fire(fmax=0.1)", "--potential", LJ, "--out", ex], w, {2},
          protect=[ex])
    xyz_bad = {
        "count not a number": "x\nc\nAr 0 0 0\n", "negative count": "-3\nc\n", "huge count": "999999999\nc\nAr 0 0 0\n",
        "truncated frame": "3\nc\nAr 0 0 0\n", "unknown element": "1\nc\nQq 0 0 0\n", "bad number": "1\nc\nAr 0 x 0\n",
        "bad lattice": '1\nLattice="1 2 3" Properties=species:S:1:pos:R:3\nAr 0 0 0\n',
        "bad properties": "1\nProperties=species:S:1:pos:R:2\nAr 0 0\n", "singular cell":
        '1\nLattice="0 0 0 0 0 0 0 0 0" Properties=species:S:1:pos:R:3 pbc="T T T"\nAr 0 0 0\n',
        "unterminated quote": '1\nLattice="1 0 0 0 1 0 0 0 1 Properties=species:S:1:pos:R:3\nAr 0 0 0\n',
    }
    for i, (name, text) in enumerate(xyz_bad.items()):
        if QUICK and i > 2:
            break
        f = os.path.join(w, f"bad{i}.xyz")
        open(f, "w").write(text)
        judge("simulate input", name, ["simulate", f, "--pipeline", "fire(fmax=0.1)", "--potential", LJ, "--out", prev], w,
              {2, 3}, protect=[prev, f])
    plain = os.path.join(w, "plain.xyz")
    open(plain, "w").write("3\nLJ38 start: relaxed minimum\nAr 0 0 0\nAr 3.9 0 0\nAr 1.9 3.3 0\n2\nfree text \"quoted\"\n"
                           "Ar 0 0 0\nAr 4 0 0\n")
    out = os.path.join(w, "plain-out.xyz")

    def ase_ok(o):
        from ase.io import read
        frames = read(o, ":")
        if [a.info.get("comment") for a in frames] != ["LJ38 start: relaxed minimum", 'free text "quoted"']:
            return f"comments {[a.info.get('comment') for a in frames]}"
        return None
    judge(fam, "plain XYZ with free-text comments", ["simulate", plain, "--pipeline", "fire(steps=300)",
                                                     "--potential", LJ, "--out", out], w, 0, protect=[plain],
          check=ase_ok, out=out)
    judge(fam, "dt=1e5 flings atoms apart", ["simulate", plain, "--pipeline", "langevin(T=300, dt=100000, steps=20)",
                                             "--potential", LJ, "--out", os.path.join(w, "fling.xyz")], w, {4},
          protect=[plain])


def full_disk_cases(w):
    fam = "full disk"
    disk = os.path.join(w, "disk")
    os.makedirs(disk)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", disk], capture_output=True).returncode != 0:
        record(fam, "tmpfs", "skip", "cannot mount a tmpfs here (needs root)")
        return
    try:
        good = npy_rows(os.path.join(w, "good.npy"), 4000, 16)
        prev = os.path.join(disk, "prev.npy")
        open(prev, "wb").write(b"previous")
        judge(fam, "encode larger than the disk (preflight)", ["encode", good, "--encoding", "amplitude", "--qubits", "4",
                                                              "--out", prev], disk, {2}, protect=[prev, good])
        z = os.path.join(disk, "s.zarr")
        # a Zarr store's compressed size is unknown before it is written: it fits, or the write fails cleanly
        judge(fam, "zarr that may not fit once compressed", ["encode", good, "--encoding", "amplitude", "--qubits", "4", "--out",
                                                            z], disk, {0, 5}, protect=[prev, good], out=z)
        open(os.path.join(disk, "filler"), "wb").write(b"\0" * (512 * 1024 - 24 * 1024))
        xprev = os.path.join(disk, "prev.xyz")
        open(xprev, "w").write("previous results")
        judge(fam, "simulate output fills the disk", ["simulate", os.path.join(ROOT, "examples", "argon-clusters.xyz"),
                                                     "--pipeline", "fire(steps=20)", "--potential", LJ, "--out",
                                                     xprev], disk, {2, 5}, protect=[xprev])  # 2: the preflight saw it
        os.remove(os.path.join(disk, "filler"))
        open(os.path.join(disk, "filler"), "wb").write(b"\0" * (512 * 1024 - 100 * 1024))
        judge(fam, "flink simulate output fills the disk (past the preflight)", [
            "simulate", os.path.join(ROOT, "examples", "argon-clusters.xyz"), "--pipeline", "fire(steps=20)",
            "--potential", LJ, "--out", xprev, "--runner", "flink"], disk, {5}, protect=[xprev], timeout=120)
        os.remove(os.path.join(disk, "filler"))
        z2 = os.path.join(disk, "f.zarr")
        judge(fam, "flink encode zarr that may not fit", ["encode", good, "--encoding", "amplitude", "--qubits", "4", "--out", z2,
                                                          "--runner", "flink"], disk, {0, 5}, protect=[prev, good], out=z2,
              timeout=120)
    finally:
        subprocess.run(["umount", disk])


def sidecar_cases(w):
    """A run's outputs are one set: checked before anything is written, committed together, never mixed."""
    fam = "output sets"
    bad = npy_rows(os.path.join(w, "bad.npy"), 50, 8, nan_rows=(3,))
    out = os.path.join(w, "s.npy")
    open(out, "w").write("previous states")
    skipped = out + ".skipped.tsv"
    open(skipped, "w").write("previous skipped")
    os.makedirs(out + ".rows.npy")
    judge(fam, "OUT.rows.npy is a folder", ["encode", bad, "--encoding", "amplitude", "--qubits", "3", "--on-bad-row", "skip",
                                            "--out", out], w, {5}, protect=[out, skipped, bad])
    os.rmdir(out + ".rows.npy")
    judge(fam, "skip run writes its sidecars", ["encode", bad, "--encoding", "amplitude", "--qubits", "3", "--on-bad-row", "skip",
                                                "--out", out], w, 0, check=states_ok(49, 3), out=out)
    good = npy_rows(os.path.join(w, "good.npy"), 20, 8)
    judge(fam, "a clean run removes the old skipped rows", ["encode", good, "--encoding", "amplitude", "--qubits", "3", "--out", out],
          w, 0, check=lambda o: states_ok(20, 3)(o) or ("OUT.skipped.tsv of the earlier run kept" if os.path.exists(skipped) else None),
          out=out)
    ex = os.path.join(ROOT, "examples", "argon-clusters.xyz")
    xout = os.path.join(w, "r.xyz")
    open(xout, "w").write("previous results")
    os.makedirs(xout + ".quarantined.xyz")
    judge(fam, "OUT.quarantined.xyz is a folder", ["simulate", ex, "--pipeline", "fire(steps=20)", "--potential", LJ,
                                                   "--out", xout], w, {5}, protect=[xout])
    os.rmdir(xout + ".quarantined.xyz")
    big = npy_rows(os.path.join(w, "big.npy"), 20000, 78)
    busy = os.path.join(w, "busy")  # the first run's folder: its own temporaries are there while it runs
    os.makedirs(busy)
    two = os.path.join(busy, "two.npy")
    first = subprocess.Popen(JAVA + ["encode", big, "--encoding", "iqp", "--qubits", "12", "--out", two], cwd=w,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lock = os.path.join(busy, ".two.npy.penstock-lock")
    deadline = time.time() + 60
    while not os.path.exists(lock) and first.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    second = os.path.join(w, "second")
    os.makedirs(second)
    judge(fam, "a second run on the same OUT while the first runs", ["encode", good, "--encoding", "amplitude", "--qubits", "3",
                                                                    "--out", two], second, {5}, protect=[good])
    first.communicate(timeout=300)
    try:
        n = np.load(two).shape
        ok = first.returncode == 0 and n == (20000, 4096) and np.load(two + ".rows.npy").shape == (20000,)
    except Exception as e:
        ok, n = False, e
    record(fam, "the first run then commits whole", "result" if ok else "BAD", "" if ok else f"exit {first.returncode}, OUT {n}")
    plan_dir = os.path.join(w, "plan")
    judge(fam, "simulate --dry-run creates nothing", ["simulate", ex, "--pipeline", "fire(fmax=0.05)", "--potential", LJ, "--out",
                                                      os.path.join(plan_dir, "o.xyz"), "--snapshots", os.path.join(plan_dir, "s"),
                                                      "--dry-run"], w, 0,
          check=lambda o: "created " + o if os.path.exists(o) else None, out=plan_dir)


def flink_cases(w):
    """Flink runs leave nothing behind: no thread, no leased buffer, no working file, no user folder touched."""
    fam = "flink"
    nan = npy_rows(os.path.join(w, "nan.npy"), 5000, 16, nan_rows=(3000,))
    out = os.path.join(w, "s.npy")
    for k in range(1 if QUICK else 3):
        judge(fam, f"a NaN row on Flink ({k + 1})", ["encode", nan, "--encoding", "amplitude", "--qubits", "4", "--out", out,
                                                    "--runner", "flink", "--parallelism", "2"], w, {3}, protect=[nan], out=out,
              timeout=120)
    tmp = os.path.join(w, "jvm-tmp")
    os.makedirs(tmp)
    good = npy_rows(os.path.join(w, "good.npy"), 2000, 16)
    judge(fam, "encode on Flink leaves no working file", ["encode", good, "--encoding", "amplitude", "--qubits", "4", "--out",
                                                         os.path.join(w, "g.npy"), "--runner", "flink"], w, 0,
          check=lambda o: states_ok(2000, 4)(o) or (f"{os.listdir(tmp)} left in java.io.tmpdir" if os.listdir(tmp) else None),
          out=os.path.join(w, "g.npy"), jvm=["-Djava.io.tmpdir=" + tmp], timeout=120)
    ex = os.path.join(ROOT, "examples", "argon-clusters.xyz")
    up = os.path.join(w, "up.xyz")
    mine = up + ".parts"
    os.makedirs(mine)
    open(os.path.join(mine, "notes.txt"), "w").write("mine")
    judge(fam, "simulate on Flink keeps the user's OUT.parts/", ["simulate", ex, "--pipeline", "fire(steps=20)",
                                                                "--potential", LJ, "--out", up, "--runner", "flink"], w, 0,
          check=lambda o: None if os.path.exists(os.path.join(mine, "notes.txt")) else "OUT.parts/notes.txt is gone", out=up,
          timeout=120)
    big = npy_rows(os.path.join(w, "big.npy"), 20000, 78)
    prev = os.path.join(w, "prev.npy")
    run(["encode", good, "--encoding", "amplitude", "--qubits", "4", "--out", prev], w)
    for sig, name, codes in [(signal.SIGTERM, "SIGTERM", {143}), (signal.SIGKILL, "SIGKILL", {-9})][: 1 if QUICK else None]:
        judge(fam, f"{name} during a Flink encode", ["encode", big, "--encoding", "iqp", "--qubits", "12", "--out", prev, "--runner",
                                                    "flink"], w, codes | {0}, protect=[big], kill_after=6, sig=sig, timeout=180)
        try:
            n = np.load(prev).shape[0]
            ok = n in (2000, 20000)
        except Exception as e:
            ok, n = False, e
        record(fam, f"{name} during a Flink encode: OUT complete", "result" if ok else "BAD", "" if ok else f"OUT holds {n}")
        for t in temporaries(w):
            shutil.rmtree(t, ignore_errors=True) if os.path.isdir(t) else os.remove(t)
    judge(fam, "a refusal on Flink creates nothing", ["simulate", ex, "--pipeline", "fire(fmax=0.05)", "--potential", LJ, "--out",
                                                      os.path.join(w, "none", "o.xyz"), "--runner", "flink", "--parallelism", "0"],
          w, {2}, out=os.path.join(w, "none"))


def reader_cases(w):
    """Inputs read exactly as their own tools read them, or refused in one line."""
    fam = "readers"
    try:
        import h5py
    except ImportError:
        record(fam, "h5py", "skip", "python3-h5py is not installed")
        h5py = None
    if h5py is not None:
        f = os.path.join(w, "sparse.h5")
        with h5py.File(f, "w") as h:
            x = h.create_dataset("x", shape=(1500, 4), dtype="f8", chunks=(100, 4), fillvalue=0.25)
            x[0:300] = np.arange(1, 1201, dtype=np.float64).reshape(300, 4)
        with h5py.File(f, "r") as h:
            data = h["x"][:]
        want = data / np.linalg.norm(data, axis=1, keepdims=True)
        o = os.path.join(w, "h.npy")

        def fill_ok(out):
            got = np.load(out)
            return None if np.allclose(got.real, want, atol=1e-12) else "states differ from h5py's values (fill value?)"
        judge(fam, "HDF5 chunks never written hold the fill value", ["encode", f, "--dataset", "/x", "--encoding", "amplitude",
                                                                     "--qubits", "2", "--out", o], w, 0, check=fill_ok, out=o)
    sub = os.path.join(w, "subnormal.npy")
    np.save(sub, np.array([[5e-324, 0, 5e-324, 0], [1e-310, 2e-310, 0, 0], [3, 4, 0, 0]]))
    so = os.path.join(w, "sub-states.npy")

    def sub_ok(out):
        s = np.load(out)
        return None if np.all(np.isfinite(s)) and np.allclose(np.sum(np.abs(s) ** 2, axis=1), 1) else f"states {s}"
    for policy in ["fail", "skip"]:
        judge(fam, f"subnormal rows ({policy})", ["encode", sub, "--encoding", "amplitude", "--qubits", "2", "--on-bad-row", policy,
                                                 "--out", so], w, 0, check=sub_ok, out=so)
    for dt in ([">f8", "<i4", "<f2", "F"] if not QUICK else [">f8"]):
        f = os.path.join(w, f"dtype-{dt.replace('<', 'le').replace('>', 'be')}.npy")
        a = np.sin(np.arange(64).reshape(8, 8)) + 2
        np.save(f, np.asfortranarray(a) if dt == "F" else a.astype(dt))
        o = f + ".states.npy"
        judge(fam, f".npy of dtype {dt}", ["encode", f, "--encoding", "amplitude", "--qubits", "3", "--out", o], w, {0, 2, 3},
              protect=[f], check=states_ok(8, 3), out=o)
    v3 = os.path.join(w, "v3.zarr")

    def v3_ok(out):
        import json
        meta = json.load(open(os.path.join(out, "states", "zarr.json")))
        return None if meta.get("zarr_format") == 3 and meta.get("shape") == [20, 8] else f"zarr.json {meta}"
    g20 = npy_rows(os.path.join(w, "g20.npy"), 20, 8)
    judge(fam, "Zarr v3 output", ["encode", g20, "--encoding", "amplitude", "--qubits", "3", "--out", v3, "--zarr-format", "3"], w, 0,
          check=v3_ok, out=v3)
    arrow_js = os.environ.get("PENSTOCK_ARROW_JS", os.path.expanduser("~/.cache/penstock/arrow-js"))
    if shutil.which("node") and os.path.isdir(os.path.join(arrow_js, "node_modules", "apache-arrow")):
        af = os.path.join(w, "t.arrow")
        js = ("const a=require('apache-arrow');const fs=require('fs');const n=16;const x=new Float64Array(n),y=new Float64Array(n);"
              "for(let i=0;i<n;i++){x[i]=i+1;y[i]=i===5?NaN:2*i+1;}"
              "fs.writeFileSync(process.argv[1],a.tableToIPC(a.tableFromArrays({x,y}),'file'));")
        subprocess.run(["node", "-e", js, af], cwd=arrow_js, check=True)
        ao = os.path.join(w, "arrow-states.npy")
        judge(fam, "Arrow IPC with a NaN, skip mode", ["encode", af, "--columns", "x,y", "--encoding", "amplitude", "--qubits", "1",
                                                       "--on-bad-row", "skip", "--out", ao], w, 0, protect=[af], check=states_ok(15, 1),
              out=ao)
        judge(fam, "Arrow IPC with a NaN, fail mode", ["encode", af, "--columns", "x,y", "--encoding", "amplitude", "--qubits", "1",
                                                       "--out", os.path.join(w, "arrow-fail.npy")], w, {3}, protect=[af],
              out=os.path.join(w, "arrow-fail.npy"))
    else:
        record(fam, "Arrow IPC", "skip", "Arrow JS (npm apache-arrow, as .ci/run installs it) is not here")
    mixed = os.path.join(w, "mixed.xyz")
    with open(mixed, "w") as m:
        for k in range(14):
            tag = {1: " id=12", 3: " id=0"}.get(k, "")
            m.write(f'2\nLattice="9 0 0 0 9 0 0 0 9" Properties=species:S:1:pos:R:3 pbc="T T T"{tag}\nAr 0 0 0\nAr 3.9 0 {k * 0.01}\n')
    mo = os.path.join(w, "mixed-out.xyz")

    def ids_ok(out):
        from ase.io import read
        frames = read(out, ":")
        ids = [a.info.get("id") for a in frames]
        return None if len(frames) == 14 and len(set(ids)) == 14 else f"ids {ids}"
    judge(fam, "extended XYZ, frames with and without id=", ["simulate", mixed, "--pipeline", "fire(steps=50)", "--potential",
                                                            LJ, "--out", mo], w, 0, protect=[mixed], check=ids_ok, out=mo)


def main():
    work = tempfile.mkdtemp(prefix="penstock-campaign-")
    try:
        only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
        for fn in [encode_cases, option_cases, output_cases, interrupt_cases, simulate_cases, full_disk_cases, sidecar_cases,
                   flink_cases, reader_cases]:
            if only and not any(o in fn.__name__ for o in only):
                continue
            d = os.path.join(work, fn.__name__)
            os.makedirs(d)
            print(fn.__name__, flush=True)
            fn(d)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    kinds = {k: sum(1 for r in results if r[2] == k) for k in ["result", "error", "BAD", "skip"]}
    print(f"\ncases: {len(results)}, correct results: {kinds['result']}, clear errors: {kinds['error']}, "
          f"bad outcomes: {kinds['BAD']}, skipped: {kinds['skip']}")
    for r in results:
        if r[2] == "BAD":
            print(f"BAD {r[0]}: {r[1]} — {r[3]}")
    return 1 if kinds["BAD"] else 0


if __name__ == "__main__":
    sys.exit(main())
