package dev.penstock.flink;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.stage.History;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.stage.SystemCodec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.CpuDevice;
import dev.penstock.stage.Event;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/// The atomistic workload as a Flink job: the same pipeline and potential texts as
/// `penstock simulate` (`+` fuses inside one operator, `|` chains operators), made again on
/// every task from those texts, so the job carries only strings and numbers.
public final class AtomsJob {
    private AtomsJob() {
    }

    /// A job spec for `pipeline` over `potential`, Langevin noise from `seed`, every stage's
    /// batch room `room` (systems, atoms, edges), its kernels on one thread.
    public static JobSpec<AtomicSystem> spec(String pipeline, String potential, long seed, long[] room) {
        return spec(pipeline, potential, seed, room, 1, Double.POSITIVE_INFINITY);
    }

    /// As the other `spec`: every stage a device stage (`DeviceStages`: its batch packed on a
    /// `CpuDevice` of its own on each task, its kernels split over `kernelThreads`, a system with
    /// an atom that moves more than `maxStep` Å in a step quarantined) — what `simulate` runs
    /// locally, so the job writes the same bytes.
    public static JobSpec<AtomicSystem> spec(String pipeline, String potential, long seed, long[] room, int kernelThreads, double maxStep) {
        List<List<PipelineSpec.Call>> stages = PipelineSpec.parse(pipeline);
        double cutoff = PipelineSpec.potential(potential).get().cutoff(); // validates on the client
        List<JobSpec.StageFactory<AtomicSystem>> factories = new ArrayList<>();
        List<long[]> rooms = new ArrayList<>();
        for (int i = 0; i < stages.size(); i++) {
            for (PipelineSpec.Call c : stages.get(i)) {
                PipelineSpec.check(c); // every spec error here, not on a task manager
            }
            int index = i;
            // the device stages' refusals (method, potential) here too: building a stage allocates nothing
            DeviceStages.stage(stages.get(i), PipelineSpec.potential(potential).get(), "cpu", CpuDevice::new,
                    d -> new CpuRelaxKernels(kernelThreads), maxStep, seed);
            factories.add(() -> DeviceStages.stage(PipelineSpec.parse(pipeline).get(index), PipelineSpec.potential(potential).get(), "cpu",
                    CpuDevice::new, d -> new CpuRelaxKernels(kernelThreads), maxStep, seed));
            rooms.add(room.clone());
        }
        return new JobSpec<>(factories, new Sizes(cutoff), new Codec(), rooms, (s, out) -> ExtXyz.write(out, List.of(s)), new Notes());
    }

    /// The stage history and quarantine diagnoses in each system's info (`History`).
    static final class Notes implements JobSpec.Notes<AtomicSystem> {
        @Override
        public void noted(Event<AtomicSystem> e) {
            History.record(e);
        }
    }

    /// `Systems` sizes (systems, atoms, edges within `listRadius`), serializable.
    static final class Sizes implements JobSpec.SerializableSizer<AtomicSystem> {
        private final double listRadius;
        private transient Systems systems;

        Sizes(double listRadius) {
            this.listRadius = listRadius;
        }

        private Systems systems() {
            if (systems == null) {
                systems = Systems.withListRadius(listRadius);
            }
            return systems;
        }

        @Override
        public List<String> dimensions() {
            return systems().dimensions();
        }

        @Override
        public long size(AtomicSystem s, int d) {
            return systems().size(s, d);
        }

        @Override
        public long id(AtomicSystem s) {
            return s.id();
        }
    }

    /// `SystemCodec`, serializable.
    static final class Codec implements JobSpec.SerializableCodec<AtomicSystem> {
        private transient SystemCodec codec;

        private SystemCodec codec() {
            if (codec == null) {
                codec = new SystemCodec();
            }
            return codec;
        }

        @Override
        public void write(AtomicSystem s, DataOutput out) throws IOException {
            codec().write(s, out);
        }

        @Override
        public AtomicSystem read(DataInput in) throws IOException {
            return codec().read(in);
        }
    }
}
