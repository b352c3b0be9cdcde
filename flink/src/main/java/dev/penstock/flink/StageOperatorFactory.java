package dev.penstock.flink;

import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/// Makes a `StageOperator` on each task, handing it the task's mailbox executor.
final class StageOperatorFactory<S> extends AbstractStreamOperatorFactory<byte[]> implements OneInputStreamOperatorFactory<byte[], byte[]> {
    private final JobSpec<S> spec;
    private final int index;
    private final int pendingLimit;

    StageOperatorFactory(JobSpec<S> spec, int index, int pendingLimit) {
        this.spec = spec;
        this.index = index;
        this.pendingLimit = pendingLimit;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<byte[]>> T createStreamOperator(StreamOperatorParameters<byte[]> parameters) {
        return (T) new StageOperator<>(parameters, spec, index, pendingLimit);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Class<? extends StreamOperator<?>> getStreamOperatorClass(ClassLoader classLoader) {
        return (Class) StageOperator.class;
    }
}
