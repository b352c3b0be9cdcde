package dev.penstock.atoms.stage;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.stage.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Map;

/// Atomic systems to bytes and back, every field exactly (positions, velocities, forces,
/// masses, numbers, cell, pbc, energy, virial, info): for the disk overflow tier, checkpoints and
/// moving systems between machines. Version 2 added the virial; version 1 records still read.
public final class SystemCodec implements Codec<AtomicSystem> {
    private static final int VERSION = 2;

    @Override
    public void write(AtomicSystem s, DataOutput out) throws IOException {
        out.writeByte(VERSION);
        out.writeLong(s.id());
        int n = s.atoms();
        out.writeInt(n);
        for (double[] a : new double[][] {s.positions(), s.velocities(), s.forces(), s.masses()}) {
            for (double x : a) {
                out.writeDouble(x);
            }
        }
        for (int z : s.numbers()) {
            out.writeInt(z);
        }
        for (double v : s.cell().vectors()) {
            out.writeDouble(v);
        }
        for (int d = 0; d < 3; d++) {
            out.writeBoolean(s.periodic(d));
        }
        out.writeDouble(s.energy());
        double[] w = s.virial();
        out.writeBoolean(w != null);
        if (w != null) {
            for (double x : w) {
                out.writeDouble(x);
            }
        }
        out.writeInt(s.info().size());
        for (Map.Entry<String, String> e : s.info().entrySet()) {
            out.writeUTF(e.getKey());
            out.writeUTF(e.getValue());
        }
    }

    @Override
    public AtomicSystem read(DataInput in) throws IOException {
        int version = in.readByte();
        if (version != VERSION && version != 1) {
            throw new IOException("atomic system record of version " + version + "; this reader knows version " + VERSION);
        }
        long id = in.readLong();
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("system " + id + ": negative atom count " + n);
        }
        double[] r = doubles(in, 3 * n);
        double[] v = doubles(in, 3 * n);
        double[] f = doubles(in, 3 * n);
        double[] m = doubles(in, n);
        int[] z = new int[n];
        for (int i = 0; i < n; i++) {
            z[i] = in.readInt();
        }
        double[] cell = doubles(in, 9);
        boolean[] pbc = {in.readBoolean(), in.readBoolean(), in.readBoolean()};
        AtomicSystem s = new AtomicSystem(id, r, m, z, Cell.of(cell, pbc));
        System.arraycopy(v, 0, s.velocities(), 0, v.length);
        System.arraycopy(f, 0, s.forces(), 0, f.length);
        s.energy(in.readDouble());
        if (version >= 2 && in.readBoolean()) {
            s.virial(doubles(in, 9));
        }
        int k = in.readInt();
        for (int i = 0; i < k; i++) {
            s.info().put(in.readUTF(), in.readUTF());
        }
        return s;
    }

    private static double[] doubles(DataInput in, int n) throws IOException {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = in.readDouble();
        }
        return out;
    }
}
