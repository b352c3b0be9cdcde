package dev.penstock.quantum;

import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.formats.zarr.ZarrFormat;
import dev.penstock.formats.zarr.ZarrGroup;
import dev.penstock.formats.zarr.ZarrWriter;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/// Where an encode's states go, laid out as `penstock encode` writes them, by the local runner
/// and by the Flink encode's join alike:
///
/// ```
///   OUT.npy + OUT.npy.rows.npy           states [rows, 2^qubits], and the input row of each (int64)
///   OUT.zarr/ states [rows, 2^qubits]    chunked by rows per chunk (at most the input's rows, a chunk under 2 GB)
///             rows [rows, 1] i8          attributes: encoding, qubits, source
/// ```
///
/// Everything is written beside its destination; `commit` writes the row indices and then puts
/// the states in place (a reader never sees states without their rows); closed without it,
/// every destination is as it was. Inside an `OutputSet` (what `penstock encode` opens), the set
/// puts them in place with the sidecars, all or nothing. Threading: one writer thread.
public final class StatesOutput implements AutoCloseable, RowSink {
    private final NpyWriter npy;
    private final Path rowsFile;
    private final ZarrGroup group;
    private final ZarrWriter zarrStates;

    private StatesOutput(NpyWriter npy, Path rowsFile, ZarrGroup group, ZarrWriter zarrStates) {
        this.npy = npy;
        this.rowsFile = rowsFile;
        this.group = group;
        this.zarrStates = zarrStates;
    }

    /// The outputs of an encode of `inputRows` rows from `source` (its file name) with `encoding`
    /// into `states` of `qubits` qubits at `out`: a Zarr group of `zarr`, or a `.npy` when null.
    public static StatesOutput open(Path out, ZarrFormat zarr, DType states, int qubits, long inputRows, int rowsPerChunk, String encoding,
            String source) throws IOException {
        if (zarr == null) {
            return new StatesOutput(NpyWriter.open(out, states, 1L << qubits), rowsFile(out, false), null, null);
        }
        ZarrGroup g = ZarrGroup.create(out, zarr, Map.of("encoding", encoding, "qubits", qubits, "source", source));
        try {
            long rowBytes = states.byteSize() << qubits;
            int chunk = (int) Math.max(1, Math.min(Math.min(rowsPerChunk, inputRows), (Integer.MAX_VALUE - 64) / rowBytes));
            return new StatesOutput(null, rowsFile(out, true), g, g.array("states", states, 1L << qubits, chunk, 1, Map.of()));
        } catch (IOException | RuntimeException e) {
            g.close();
            throw e;
        }
    }

    /// Where the input row of each state goes: `OUT.rows.npy` beside a `.npy`, `OUT/rows` in a group.
    public static Path rowsFile(Path out, boolean zarr) {
        return zarr ? out.resolve("rows") : out.resolveSibling(out.getFileName() + ".rows.npy");
    }

    /// Appends states (`[k, 2^qubits]`).
    @Override
    public void write(Block states) throws IOException {
        if (npy != null) {
            npy.append(states);
        } else {
            zarrStates.append(states);
        }
    }

    /// Writes the input row of each state (every input row but `skippedRows`) and puts the
    /// outputs in place.
    public void commit(long inputRows, long[] skippedRows) throws IOException {
        if (group != null) {
            ZarrWriter rows = group.array("rows", DType.I64, 1, 65536, 1, Map.of("meaning", "input row of each state"));
            KeptRows.write(inputRows, skippedRows, (seg, n) -> rows.append(Block.wrap(seg, DType.I64, null, n, 1)));
            group.commit();
            return;
        }
        try (NpyWriter rows = NpyWriter.open(rowsFile, DType.I64)) {
            KeptRows.write(inputRows, skippedRows, rows::append);
            rows.commit();
        }
        npy.commit(); // last: a reader never sees states without their row indices
    }

    /// Closes; without `commit` nothing written is kept.
    @Override
    public void close() throws IOException {
        if (npy != null) {
            npy.close();
        } else {
            group.close();
        }
    }

    /// `OUT.skipped.tsv`: a `row\treason` header, then `lines` (each `row\treason`, rows
    /// ascending); with none, an earlier run's file is removed (it would describe other states) —
    /// with the rest of the run's outputs when they form an `OutputSet`.
    public static void writeSkipped(Path file, java.util.List<String> lines) throws IOException {
        if (lines.isEmpty()) {
            dev.penstock.io.OutputSet.remove(file);
            return;
        }
        dev.penstock.io.PendingOutput.write(file, tmp -> {
            try (java.io.Writer w = java.nio.file.Files.newBufferedWriter(tmp)) {
                w.write("row\treason\n");
                for (String line : lines) {
                    w.write(line + "\n");
                }
            }
        });
    }
}
