package dev.penstock.device;

import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import java.util.List;

/// Test devices that wrap a real one: a device whose copies are slow, one that logs every
/// launch and wait.
public final class TestingDevices {
    private TestingDevices() {
    }

    /// A device whose streams' `copy` sleeps `ms` before copying (adversarial timing).
    public static Device slowCopies(Device inner, long ms) {
        return new Wrapping(inner, null, ms);
    }

    /// A device whose streams log `"STREAM: OP"` for every launch and `"STREAM: waitFor"`.
    public static Device recording(Device inner, List<String> log) {
        return new Wrapping(inner, log, 0);
    }

    private static final class Wrapping implements Device {
        private final Device inner;
        private final List<String> log;
        private final long copySleepMs;

        Wrapping(Device inner, List<String> log, long copySleepMs) {
            this.inner = inner;
            this.log = log;
            this.copySleepMs = copySleepMs;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public Stream newStream(String name) {
            Stream s = inner.newStream(name);
            Device self = this;
            return new Stream() {
                @Override
                public String name() {
                    return name;
                }

                @Override
                public Device device() {
                    return self;
                }

                @Override
                public void launch(String opName, Op op) {
                    if (log != null) {
                        log.add(name + ": " + opName);
                    }
                    s.launch(opName, op);
                }

                @Override
                public void copy(Block src, Block dst) {
                    if (copySleepMs == 0) { // the device's own copy (a device copy on a GPU), logged
                        if (log != null) {
                            log.add(name + ": copy");
                        }
                        s.copy(src, dst);
                        return;
                    }
                    launch("slow copy", () -> {
                        Thread.sleep(copySleepMs);
                        dst.copyFrom(src);
                    });
                }

                @Override
                public Event record() {
                    return s.record();
                }

                @Override
                public void waitFor(Event event) {
                    if (log != null) {
                        log.add(name + ": waitFor");
                    }
                    s.waitFor(event);
                }

                @Override
                public void synchronize() {
                    s.synchronize();
                }
            };
        }

        @Override
        public BlockArena newArena(String name) {
            return inner.newArena(name);
        }

        @Override
        public boolean isHostMemory() {
            return inner.isHostMemory();
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
