package dev.penstock.testing;

import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/// Holds what a logger (`System.Logger` names are `java.util.logging` names) says during a test
/// that provokes it on purpose, instead of letting it reach the build's stderr: the records are
/// kept for the test to assert on, and the logger's parents see nothing until `close()`.
public final class LogCapture implements AutoCloseable {
    private final Logger logger; // held: java.util.logging keeps loggers weakly
    private final boolean parents;
    private final List<LogRecord> records = Collections.synchronizedList(new ArrayList<>());
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LogCapture(String name) {
        this.logger = Logger.getLogger(name);
        this.parents = logger.getUseParentHandlers();
        logger.addHandler(handler);
        logger.setUseParentHandlers(false);
    }

    /// Starts capturing logger `name` and everything under it.
    public static LogCapture of(String name) {
        return new LogCapture(name);
    }

    /// The records so far (a copy).
    public List<LogRecord> records() {
        synchronized (records) {
            return new ArrayList<>(records);
        }
    }

    /// The records' messages so far, their `{0}` parameters filled in.
    public List<String> messages() {
        return records().stream().map(r -> r.getParameters() == null ? r.getMessage() : MessageFormat.format(r.getMessage(),
                r.getParameters())).toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setUseParentHandlers(parents);
    }
}
