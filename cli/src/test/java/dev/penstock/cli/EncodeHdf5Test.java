package dev.penstock.cli;

import static dev.penstock.cli.MainTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Python;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `encode` from HDF5 files written by h5py: the same states and row indices, byte for byte, as
/// from the same rows in a `.npy` file NumPy wrote (contiguous float64; chunked gzip float32 in a
/// group, named with `--dataset`), bad (NaN) rows skipped and reported the same way, and bad
/// inputs and options refused in one line naming them, nothing written.
class EncodeHdf5Test {
    @TempDir
    static Path dir;

    @BeforeAll
    static void write() throws Exception {
        assumeTrue(Python.required() || Python.has("h5py"), "h5py (python3-h5py) is not installed");
        Python.Result r = Python.run("""
                import sys, h5py, numpy as np
                d = sys.argv[1]
                rng = np.random.default_rng(3)
                a = rng.standard_normal((500, 8))
                a[17, 2] = np.nan
                b = rng.standard_normal((300, 16)).astype(np.float32)
                with h5py.File(d + "/rows.h5", "w") as f:
                    f.create_dataset("features", data=a)
                with h5py.File(d + "/two.hdf5", "w") as f:
                    f.create_dataset("other", data=a)
                    f.create_group("train").create_dataset("x", data=b, chunks=(32, 16), compression="gzip")
                np.save(d + "/rows.npy", a)
                np.save(d + "/x.npy", b)
                """, dir.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
    }

    private static void sameFiles(Path a, Path b) throws Exception {
        assertThat(Files.readAllBytes(a)).as("%s = %s", a, b).isEqualTo(Files.readAllBytes(b));
    }

    @Test
    void anHdf5DatasetEncodesAsTheSameRowsFromNpy() throws Exception {
        String fromH5 = run(0, "encode", dir.resolve("rows.h5").toString(), "--encoding", "amplitude", "--qubits", "3", "--on-bad-row", "skip",
                "--rows-per-chunk", "64", "--out", dir.resolve("h5.npy").toString());
        String fromNpy = run(0, "encode", dir.resolve("rows.npy").toString(), "--encoding", "amplitude", "--qubits", "3", "--on-bad-row", "skip",
                "--rows-per-chunk", "64", "--out", dir.resolve("npy.npy").toString());
        assertThat(fromH5).contains("encoded 499 of").contains("skipped 1 bad rows").contains("row 17: value 2 is NaN");
        assertThat(fromNpy).contains("encoded 499 of");
        sameFiles(dir.resolve("h5.npy"), dir.resolve("npy.npy"));
        sameFiles(dir.resolve("h5.npy.rows.npy"), dir.resolve("npy.npy.rows.npy"));

        run(0, "encode", dir.resolve("two.hdf5").toString(), "--dataset", "/train/x", "--encoding", "angle", "--qubits", "16",
                "--out", dir.resolve("x-h5.zarr").toString());
        run(0, "encode", dir.resolve("x.npy").toString(), "--encoding", "angle", "--qubits", "16", "--out", dir.resolve("x-npy.zarr").toString());
        for (String f : new String[] {"states/.zarray", "states/0.0", "rows/0.0"}) {
            sameFiles(dir.resolve("x-h5.zarr").resolve(f), dir.resolve("x-npy.zarr").resolve(f));
        }
    }

    @Test
    void inspectListsTheDatasets() {
        assertThat(run(0, "inspect", dir.resolve("two.hdf5").toString())).contains("HDF5, datasets:").contains("/other [500, 8] double")
                .contains("/train/x [300, 16] float");
        InspectJson.check(MainTest.stdout(0, "inspect", dir.resolve("two.hdf5").toString(), "--json"),
                "j['format'] == 'hdf5' and {'path': '/train/x', 'shape': [300, 16], 'type': 'float', 'readable': True} in j['datasets'] "
                        + "and {'path': '/other', 'shape': [500, 8], 'type': 'double', 'readable': True} in j['datasets']");
    }

    @Test
    void badHdf5InputsAndOptionsAreRefusedInOneLineAndNothingIsWritten() throws Exception {
        Path out = dir.resolve("never.npy");
        String two = run(3, "encode", dir.resolve("two.hdf5").toString(), "--encoding", "angle", "--qubits", "8", "--out", out.toString());
        assertThat(two).contains("two.hdf5: 2 2-D numeric datasets (/other, /train/x); name one with --dataset");
        assertThat(two.strip().lines().count()).as(two).isEqualTo(1);
        assertThat(run(3, "encode", dir.resolve("two.hdf5").toString(), "--dataset", "/test/x", "--encoding", "angle", "--qubits", "8", "--out",
                out.toString())).contains("no dataset '/test/x'");
        assertThat(run(2, "encode", dir.resolve("rows.npy").toString(), "--dataset", "/x", "--encoding", "angle", "--qubits", "8", "--out",
                out.toString())).contains("option '--dataset' names an HDF5 dataset");
        assertThat(run(2, "encode", dir.resolve("rows.h5").toString(), "--columns", "a", "--encoding", "angle", "--qubits", "8", "--out",
                out.toString())).contains("option '--columns' selects Parquet or Arrow columns");
        assertThat(out).doesNotExist();
        assertThat(dir.resolve("never.npy.rows.npy")).doesNotExist();
    }
}
