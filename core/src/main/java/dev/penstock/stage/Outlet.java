package dev.penstock.stage;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/// Where a stage's worker sends the samples that exit its stage: one strategy per mode, chosen
/// once when the worker starts (`of`). Every one ends in `StageWorker.send` — into the buffer
/// after the stage, or to the result sinks after the last.
///
/// ```
///   SYNC, ASYNC_RECEIVE     Direct      the worker sends at once, blocking while there is no room
///   FULLY_ASYNC             ViaSender   an outbox the worker never waits on; a sender thread
///                                       empties it (blocking there instead)
///   synchronized steps,     Pending     exits wait in a list, offered again before each
///   not the last stage                  receive; the stage admits nothing new until they left
/// ```
///
/// Threading: every method is called by the stage's worker only.
sealed interface Outlet<S> permits Outlet.Direct, Outlet.ViaSender, Outlet.Pending {
    /// `sample` exited the stage (its last sub-stage graduated it).
    void exited(S sample) throws Exception;

    /// Called before each receive: moves on what waits, if it can.
    default void beforeReceive() throws Exception {
    }

    /// Whether exits still wait to leave (then the stage admits nothing new, and is not done).
    default boolean holding() {
        return false;
    }

    /// The stage is done: hands on what is left and stops any thread of the outlet.
    default void close() throws Exception {
    }

    /// The outlet of worker `w`'s stage in its run's mode (starting a sender thread if it has one).
    static <S> Outlet<S> of(StageWorker<S> w) {
        Run<S> run = w.run;
        if (run.barrier != null) {
            return w.i + 1 < run.n ? new Pending<>(w) : new Direct<>(w);
        }
        return run.cfg.mode() == Pipeline.Mode.FULLY_ASYNC ? new ViaSender<>(w) : new Direct<>(w);
    }

    /// Sends at once.
    record Direct<S>(StageWorker<S> w) implements Outlet<S> {
        @Override
        public void exited(S sample) throws Exception {
            w.send(sample);
        }
    }

    /// An outbox emptied by a sender thread.
    final class ViaSender<S> implements Outlet<S> {
        private final Buffer<S> outbox;
        private final Thread sender;
        private final StageWorker<S> w;

        ViaSender(StageWorker<S> w) {
            this.w = w;
            this.outbox = new Buffer<>("outbox of stage " + w.i, w.run.sizer, w.capacity, List.of());
            if (w.lane != null) {
                w.sendLane = new dev.penstock.observe.LaneRecorder(w.run.cfg.timeline(), w.laneName() + " (sender)", StageWorker.TIMELINE_GAP_NS);
            }
            this.sender = w.run.helper("penstock-send-" + w.i, "sender of stage " + w.i, this::sendLoop);
        }

        @Override
        public void exited(S sample) throws Exception {
            outbox.put(sample);
        }

        @Override
        public void close() throws Exception {
            outbox.close();
            sender.join();
        }

        private void sendLoop() throws Exception {
            while (true) {
                List<S> out = outbox.take(s -> true, Long.MAX_VALUE);
                for (S s : out) {
                    w.send(s);
                }
                if (out.isEmpty() && outbox.isDrained()) {
                    return;
                }
            }
        }
    }

    /// Under synchronized steps: a send never blocks (the neighbours wait at the barrier), so
    /// exits wait here and are offered to the buffer before each receive.
    final class Pending<S> implements Outlet<S> {
        private final List<S> waiting = new ArrayList<>();
        private final Buffer<S> out;

        Pending(StageWorker<S> w) {
            this.out = w.run.buffers.get(w.i);
        }

        @Override
        public void exited(S sample) {
            waiting.add(sample);
        }

        @Override
        public void beforeReceive() throws Exception {
            for (Iterator<S> it = waiting.iterator(); it.hasNext(); ) {
                if (out.offer(it.next())) {
                    it.remove();
                }
            }
        }

        @Override
        public boolean holding() {
            return !waiting.isEmpty();
        }
    }
}
