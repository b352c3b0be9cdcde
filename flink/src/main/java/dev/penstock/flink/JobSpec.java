package dev.penstock.flink;

import dev.penstock.stage.Capacity;
import dev.penstock.stage.Codec;
import dev.penstock.stage.Event;
import dev.penstock.stage.Sizer;
import dev.penstock.stage.Stage;
import java.io.IOException;
import java.io.Serializable;
import java.io.Writer;
import java.util.List;

/// Everything a Flink job needs to rebuild a pipeline on its task managers, serializable: how
/// to make each chained stage (a fresh model per parallel instance), the sample type's sizes
/// and codec, each stage's batch room, and how finished samples are written.
///
/// @param stages     one factory per chained stage, in order
/// @param sizer      the sample type's sizes
/// @param codec      samples to bytes and back (between operators, in checkpoints)
/// @param capacities each stage's batch room (as `Capacity.of` limits)
/// @param format     how a finished sample is written to a result file
/// @param notes      how a sample records what happened to it (stage history, quarantine)
/// @param <S>        the sample type
public record JobSpec<S>(List<StageFactory<S>> stages, SerializableSizer<S> sizer, SerializableCodec<S> codec,
                         List<long[]> capacities, Format<S> format, Notes<S> notes) implements Serializable {

    /// Validates the shape.
    public JobSpec {
        if (stages.isEmpty() || capacities.size() != stages.size()) {
            throw new IllegalArgumentException("a job needs at least one stage and one capacity per stage, got " + stages.size()
                    + " stages and " + capacities.size() + " capacities");
        }
        stages = List.copyOf(stages);
        capacities = List.copyOf(capacities);
    }

    /// Stage `i`'s batch room.
    public Capacity capacity(int i) {
        return Capacity.of(capacities.get(i));
    }

    /// Makes one chained stage (called once per parallel instance, on its task manager).
    @FunctionalInterface
    public interface StageFactory<S> extends Serializable {
        /// A new stage with its own model.
        Stage<S> create();
    }

    /// A sizer that travels with the job.
    public interface SerializableSizer<S> extends Sizer<S>, Serializable {
    }

    /// A codec that travels with the job.
    public interface SerializableCodec<S> extends Codec<S>, Serializable {
    }

    /// Records on a sample what happened to it: each event of a stage (a sub-stage finished, how
    /// it ended, or a quarantine), before the sample is emitted.
    @FunctionalInterface
    public interface Notes<S> extends Serializable {
        /// Records `event` on its sample.
        void noted(Event<S> event);

        /// Notes that record nothing.
        static <S> Notes<S> none() {
            return event -> { };
        }
    }

    /// Writes one finished sample to a result file.
    @FunctionalInterface
    public interface Format<S> extends Serializable {
        /// Appends `sample` to `out`.
        void write(S sample, Writer out) throws IOException;
    }
}
