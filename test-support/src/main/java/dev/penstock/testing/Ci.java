package dev.penstock.testing;

/// Whether this run is CI's: there a test that checks against a real tool (NumPy, zarr-python,
/// ASE, LAMMPS, g++, the CUDA toolkit) must run, so a missing tool fails it instead of skipping
/// it (`.ci/run` installs or checks every such tool first).
public final class Ci {
    private Ci() {
    }

    /// Whether tests must not skip: the `CI` environment variable is set.
    public static boolean required() {
        return System.getenv("CI") != null;
    }
}
