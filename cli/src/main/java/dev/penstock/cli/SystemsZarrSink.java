package dev.penstock.cli;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.formats.zarr.ZarrGroup;
import dev.penstock.formats.zarr.ZarrWriter;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.stage.Sink;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Map;

/// A result sink writing finished systems to a Zarr v2 group, ragged by atom offsets:
///
/// ```
///   OUT.zarr/positions [atoms, 3] f8   numbers [atoms, 1] i4   velocities [atoms, 3] f8
///            id [systems, 1] i8   energy [systems, 1] f8   atom_start [systems, 1] i8
///            atom_count [systems, 1] i8   cell [systems, 9] f8   pbc [systems, 3] u1
/// ```
///
/// System k's atoms are rows `atom_start[k] … +atom_count[k]` of the per-atom arrays, in the
/// order the systems finished. The group is written beside `OUT.zarr` and swapped in by
/// `commit()`, which the pipeline calls once the run has succeeded (metadata ASCII-escaped, as zarr-python 2 needs).
final class SystemsZarrSink implements Sink<AtomicSystem> {
    private final Path dir;
    private final ZarrGroup group;
    private final ZarrWriter positions;
    private final ZarrWriter velocities;
    private final ZarrWriter numbers;
    private final ZarrWriter ids;
    private final ZarrWriter energy;
    private final ZarrWriter atomStart;
    private final ZarrWriter atomCount;
    private final ZarrWriter cell;
    private final ZarrWriter pbc;
    private long atoms;
    private long held;

    SystemsZarrSink(Path dir) throws IOException {
        this.dir = dir;
        this.group = ZarrGroup.create(dir, Map.of());
        try {
            Map<String, Object> none = Map.of();
            positions = group.array("positions", DType.F64, 3, 65536, 1, Map.of("units", "Å"));
            velocities = group.array("velocities", DType.F64, 3, 65536, 1, Map.of("units", "Å/τ, τ = 10.1805 fs"));
            numbers = group.array("numbers", DType.I32, 1, 65536, 1, none);
            ids = group.array("id", DType.I64, 1, 4096, 1, none);
            energy = group.array("energy", DType.F64, 1, 4096, 1, Map.of("units", "eV"));
            atomStart = group.array("atom_start", DType.I64, 1, 4096, 1, none);
            atomCount = group.array("atom_count", DType.I64, 1, 4096, 1, none);
            cell = group.array("cell", DType.F64, 9, 4096, 1, Map.of("units", "Å"));
            pbc = group.array("pbc", DType.U8, 3, 4096, 1, none);
        } catch (IOException | RuntimeException e) {
            group.close();
            throw e;
        }
    }

    private static Block rows(MemorySegment seg, DType t, long rows, long width) {
        return Block.wrap(seg, t, null, rows, width);
    }

    @Override
    public synchronized boolean offer(AtomicSystem s) throws IOException {
        int n = s.atoms();
        positions.append(rows(MemorySegment.ofArray(s.positions()), DType.F64, n, 3));
        velocities.append(rows(MemorySegment.ofArray(s.velocities()), DType.F64, n, 3));
        numbers.append(rows(MemorySegment.ofArray(s.numbers()), DType.I32, n, 1));
        ids.append(rows(MemorySegment.ofArray(new long[] {s.id()}), DType.I64, 1, 1));
        energy.append(rows(MemorySegment.ofArray(new double[] {s.energy()}), DType.F64, 1, 1));
        atomStart.append(rows(MemorySegment.ofArray(new long[] {atoms}), DType.I64, 1, 1));
        atomCount.append(rows(MemorySegment.ofArray(new long[] {n}), DType.I64, 1, 1));
        cell.append(rows(MemorySegment.ofArray(s.cell().vectors()), DType.F64, 1, 9));
        byte[] p = {(byte) (s.periodic(0) ? 1 : 0), (byte) (s.periodic(1) ? 1 : 0), (byte) (s.periodic(2) ? 1 : 0)};
        pbc.append(rows(MemorySegment.ofArray(p), DType.U8, 1, 3));
        atoms += n;
        held++;
        return true;
    }

    @Override
    public String name() {
        return dir.toString();
    }

    @Override
    public synchronized long held() {
        return held;
    }

    /// Finishes every array and swaps the group in at the destination (the pipeline calls it
    /// when a run succeeds).
    @Override
    public synchronized void commit() throws IOException {
        group.commit();
    }

    /// Closes the sink; unless `commit()` came first nothing is kept and the destination is as
    /// it was.
    @Override
    public synchronized void close() throws IOException {
        group.close();
    }
}
