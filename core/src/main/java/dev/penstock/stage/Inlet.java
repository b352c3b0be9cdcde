package dev.penstock.stage;

import dev.penstock.observe.StageWaitEvent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/// Where a stage's worker gets its samples: one strategy per position and mode, chosen once
/// when the worker starts (`of`).
///
/// ```
///   stage 0                      FromSamples  the run's samples, refilled every k steps
///   stage i > 0, SYNC            FromBuffer   the upstream buffer, between steps
///   (or synchronized steps)                   (never waiting at a barrier)
///   stage i > 0, ASYNC_RECEIVE,  FromInbox    a receiver thread fills an inbox from the
///   FULLY_ASYNC                               upstream buffer while the worker steps
/// ```
///
/// Threading: `receive` and `released` are called by the stage's worker only.
sealed interface Inlet<S> permits Inlet.FromSamples, Inlet.FromBuffer, Inlet.FromInbox {
    /// Admits into the batch what is waiting and fits — waiting for input first when `empty`
    /// (the batch holds nothing), except under synchronized steps. Returns whether no more
    /// input will ever come.
    boolean receive(boolean empty) throws Exception;

    /// `sample` has left the batch: its room is free.
    void released(S sample);

    /// The inlet of worker `w`'s stage in its run's mode (starting a receiver thread if it has one).
    static <S> Inlet<S> of(StageWorker<S> w) {
        Run<S> run = w.run;
        if (w.i == 0) {
            return new FromSamples<>(w);
        }
        if (run.cfg.mode() == Pipeline.Mode.SYNC || run.barrier != null) {
            return new FromBuffer<>(w);
        }
        return new FromInbox<>(w);
    }

    /// Stage 0: refills from the run's samples every k steps, and only if room was freed since
    /// the last look (else nothing new can fit); a refill looks past at most `Run.SCAN` samples
    /// that do not fit.
    final class FromSamples<S> implements Inlet<S> {
        private final StageWorker<S> w;
        private boolean freed = true;

        FromSamples(StageWorker<S> w) {
            this.w = w;
        }

        @Override
        public boolean receive(boolean empty) {
            Run<S> run = w.run;
            StageBatch<S> batch = w.batch;
            if (empty || (batch.steps() % run.cfg.refillEvery() == 0 && freed)) {
                freed = false;
                List<S> take = new ArrayList<>();
                long[] used = new long[w.capacity.dimensions()];
                for (int d = 0; d < used.length; d++) {
                    used[d] = batch.used(d);
                }
                int passed = 0;
                for (Iterator<S> it = run.unsampled.iterator(); it.hasNext() && passed < Run.SCAN; ) {
                    S s = it.next();
                    if (w.capacity.fits(run.sizer, s, used)) {
                        it.remove();
                        take.add(s);
                        for (int d = 0; d < used.length; d++) {
                            used[d] += run.sizer.size(s, d);
                        }
                    } else {
                        passed++;
                    }
                }
                batch.admit(take, w::onEvent);
            }
            return run.unsampled.isEmpty();
        }

        @Override
        public void released(S sample) {
            freed = true;
        }
    }

    /// Between steps, takes from the upstream buffer what fits; an empty batch waits in the
    /// buffer for an arrival (signalled), except under synchronized steps, where it must reach
    /// the barrier.
    final class FromBuffer<S> implements Inlet<S> {
        private final StageWorker<S> w;
        private final Buffer<S> in;

        FromBuffer(StageWorker<S> w) {
            this.w = w;
            this.in = w.run.buffers.get(w.i - 1);
        }

        @Override
        public boolean receive(boolean empty) throws Exception {
            long t = System.nanoTime();
            StageWaitEvent event = empty ? w.waitEvent("input") : null;
            List<S> got = in.take(w.fitter(w.batch::used), empty && w.run.barrier == null ? Long.MAX_VALUE : 0);
            w.waitIn += empty ? System.nanoTime() - t : 0;
            if (empty) {
                w.waitedForInput(t);
            }
            StageWorker.commit(event);
            w.batch.admit(w.handedOff(got, empty), w::onEvent);
            return in.isDrained();
        }

        @Override
        public void released(S sample) {
        }
    }

    /// A receiver thread waits in the upstream buffer until something fits the room not yet
    /// committed (batch plus inbox; re-asked on every arrival and every release), moves it to
    /// the inbox, and says when the buffer is drained. Between steps the worker admits the whole
    /// inbox; an empty batch waits on the inbox (signalled).
    final class FromInbox<S> implements Inlet<S> {
        private final StageWorker<S> w;
        private final Buffer<S> in;
        private final Inbox<S> inbox;

        FromInbox(StageWorker<S> w) {
            this.w = w;
            this.in = w.run.buffers.get(w.i - 1);
            this.inbox = new Inbox<>(w.run.sizer, w.capacity.dimensions(), in::poke);
            w.run.helper("penstock-receive-" + w.i, "receiver of stage " + w.i, this::receiveLoop);
        }

        @Override
        public boolean receive(boolean empty) throws Exception {
            long t = System.nanoTime();
            StageWaitEvent event = empty ? w.waitEvent("input") : null;
            if (empty && !w.run.stopping) {
                inbox.awaitArrival(); // signalled by the receiver; interrupted if the run stops
            }
            w.waitIn += empty ? System.nanoTime() - t : 0;
            if (empty) {
                w.waitedForInput(t);
            }
            StageWorker.commit(event);
            boolean done = inbox.isDone(); // read before taking: nothing arrives after done
            w.batch.admit(w.handedOff(inbox.takeAll(), empty), w::onEvent);
            return done && inbox.isEmpty();
        }

        @Override
        public void released(S sample) {
            inbox.release(sample);
        }

        private void receiveLoop() throws Exception {
            while (!w.run.stopping) {
                List<S> got = in.takeWhenAccepted(() -> {
                    long[] committed = inbox.snapshot();
                    return w.fitter(d -> committed[d]);
                });
                if (!got.isEmpty()) {
                    inbox.add(got);
                } else if (in.isDrained()) {
                    inbox.finish();
                    return;
                }
            }
        }
    }
}
