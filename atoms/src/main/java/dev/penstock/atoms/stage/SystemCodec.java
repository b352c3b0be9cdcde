package dev.penstock.atoms.stage;

import dev.penstock.atoms.system.AtomArray;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.stage.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Map;

/// Atomic systems to bytes and back, every field exactly (positions, velocities, forces,
/// masses, numbers, cell, pbc, energy, virial, info, per-atom arrays): for the disk overflow tier,
/// checkpoints and moving systems between machines. Version 2 added the virial, version 3 the
/// per-atom arrays; older records still read.
public final class SystemCodec implements Codec<AtomicSystem> {
    private static final int VERSION = 3;

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
        out.writeInt(s.arrays().size());
        for (Map.Entry<String, AtomArray> e : s.arrays().entrySet()) {
            AtomArray a = e.getValue();
            out.writeUTF(e.getKey());
            out.writeByte(a.kind().letter());
            out.writeInt(a.width());
            out.writeInt(a.length());
            for (int k = 0; k < a.length(); k++) {
                switch (a.kind()) {
                    case REAL -> out.writeDouble(a.real(k));
                    case INT -> out.writeLong(a.integer(k));
                    case BOOL -> out.writeBoolean(a.bool(k));
                    case STRING -> out.writeUTF(a.text(k));
                }
            }
        }
    }

    @Override
    public AtomicSystem read(DataInput in) throws IOException {
        int version = in.readByte();
        if (version < 1 || version > VERSION) {
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
        int arrays = version >= 3 ? in.readInt() : 0;
        for (int i = 0; i < arrays; i++) {
            String name = in.readUTF();
            AtomArray.Kind kind = AtomArray.Kind.of((char) in.readByte());
            int width = in.readInt();
            int length = in.readInt();
            if (kind == null || width < 1 || length != n * width) {
                throw new IOException("system " + id + ": per-atom array '" + name + "' of " + length + " values, width " + width
                        + ", for " + n + " atoms");
            }
            s.array(name, switch (kind) {
                case REAL -> AtomArray.reals(width, doubles(in, length));
                case INT -> {
                    long[] a = new long[length];
                    for (int j = 0; j < length; j++) {
                        a[j] = in.readLong();
                    }
                    yield AtomArray.ints(width, a);
                }
                case BOOL -> {
                    boolean[] a = new boolean[length];
                    for (int j = 0; j < length; j++) {
                        a[j] = in.readBoolean();
                    }
                    yield AtomArray.bools(width, a);
                }
                case STRING -> {
                    String[] a = new String[length];
                    for (int j = 0; j < length; j++) {
                        a[j] = in.readUTF();
                    }
                    yield AtomArray.strings(width, a);
                }
            });
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
