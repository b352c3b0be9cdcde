package dev.penstock.stage;

import dev.penstock.random.Seeds;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/// A small sample type for the engine's tests: a point x on a line with a "size" (its atoms),
/// pulled to 0 by a force −x (the evaluator) and moved by two methods — a relaxation with a
/// tolerance and budget, and a random walk keyed by (seed, id, step). Each sample keeps the
/// history of what moved it, so tests can compare trajectories exactly.
final class Walker {
    final long id;
    final int size;
    double x;
    double force = Double.NaN;
    final List<String> history = new ArrayList<>();

    Walker(long id, int size, double x) {
        this.id = id;
        this.size = size;
        this.x = x;
    }

    /// "id: x bits | history".
    String outcome() {
        return id + ": " + Double.doubleToLongBits(x) + " | " + String.join(",", history);
    }

    static final Sizer<Walker> SIZER = new Sizer<>() {
        @Override
        public List<String> dimensions() {
            return List.of("samples", "atoms");
        }

        @Override
        public long size(Walker w, int d) {
            return d == 0 ? 1 : w.size;
        }

        @Override
        public long id(Walker w) {
            return w.id;
        }
    };

    static final Codec<Walker> CODEC = new Codec<>() {
        @Override
        public void write(Walker w, DataOutput out) throws IOException {
            out.writeLong(w.id);
            out.writeInt(w.size);
            out.writeDouble(w.x);
            out.writeDouble(w.force);
            out.writeInt(w.history.size());
            for (String h : w.history) {
                out.writeUTF(h);
            }
        }

        @Override
        public Walker read(DataInput in) throws IOException {
            Walker w = new Walker(in.readLong(), in.readInt(), in.readDouble());
            w.force = in.readDouble();
            int n = in.readInt();
            for (int k = 0; k < n; k++) {
                w.history.add(in.readUTF());
            }
            return w;
        }
    };

    /// Force −x for every sample; NaN positions are reported, not evaluated.
    static final class Spring implements Evaluator<Walker> {
        final AtomicLong calls = new AtomicLong();
        final long delayMs;
        final List<Long> forgotten = java.util.Collections.synchronizedList(new ArrayList<>());

        Spring(long delayMs) {
            this.delayMs = delayMs;
        }

        @Override
        public void evaluate(List<Walker> samples, Failures<Walker> failures) {
            calls.incrementAndGet();
            if (delayMs > 0) {
                try {
                    Thread.sleep(delayMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
            for (Walker w : samples) {
                if (!Double.isFinite(w.x)) {
                    failures.fail(w, "sample " + w.id + ": non-finite position " + w.x);
                    continue;
                }
                w.force = -w.x;
            }
        }

        @Override
        public void forget(Walker w) {
            forgotten.add(w.id);
        }
    }

    /// Moves x by 0.3·force until |force| < tol or `budget` steps.
    static Method<Walker> relax(double tol, long budget) {
        return new Method<>() {
            @Override
            public String name() {
                return "relax";
            }

            @Override
            public boolean terminates() {
                return budget >= 0;
            }

            @Override
            public Motion enter(Walker w) {
                return new Motion() {
                    long steps;

                    @Override
                    public void beforeEvaluation() {
                        w.x += 0.3 * w.force;
                        w.history.add("relax");
                    }

                    @Override
                    public void afterEvaluation() {
                        steps++;
                    }

                    @Override
                    public boolean finished() {
                        return Math.abs(w.force) < tol || (budget >= 0 && steps >= budget);
                    }

                    @Override
                    public long steps() {
                        return steps;
                    }
                };
            }
        };
    }

    /// A random walk of `n` steps, the draws keyed by (seed, id, step).
    static Method<Walker> walk(long n, long seed) {
        return new Method<>() {
            @Override
            public String name() {
                return "walk";
            }

            @Override
            public boolean terminates() {
                return true;
            }

            @Override
            public Motion enter(Walker w) {
                return new Motion() {
                    long steps;

                    @Override
                    public void beforeEvaluation() {
                        w.x += 0.1 * Seeds.generator(seed, "walker", w.id, steps).nextGaussian();
                        w.history.add("walk");
                    }

                    @Override
                    public void afterEvaluation() {
                        w.x += 0.01 * w.force;
                        steps++;
                    }

                    @Override
                    public boolean finished() {
                        return steps >= n;
                    }

                    @Override
                    public long steps() {
                        return steps;
                    }
                };
            }
        };
    }
}
