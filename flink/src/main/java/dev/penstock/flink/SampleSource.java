package dev.penstock.flink;

import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource.NumberSequenceSplit;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceReaderBase;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.NumberSequenceIterator;

/// A bounded FLIP-27 source of encoded samples, split by ranges of sample positions (one range
/// per reader, handed out by the enumerator; a reader's progress within its range is
/// checkpointed, so a restored job re-reads nothing that was already emitted). The samples
/// travel with the source (the job graph); the splits are only ranges.
public final class SampleSource implements Source<byte[], NumberSequenceSplit, Collection<NumberSequenceSplit>>,
        ResultTypeQueryable<byte[]> {
    private final byte[][] records;
    private final NumberSequenceSource ranges;

    /// A source of `records` (one encoded sample each, at least one).
    public SampleSource(List<byte[]> records) {
        if (records.isEmpty()) {
            throw new IllegalArgumentException("a sample source needs at least one sample");
        }
        this.records = records.toArray(new byte[0][]);
        this.ranges = new NumberSequenceSource(0, records.size() - 1);
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public TypeInformation<byte[]> getProducedType() {
        return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
    }

    @Override
    public SourceReader<byte[], NumberSequenceSplit> createReader(SourceReaderContext context) {
        return new Reader(context, records);
    }

    @Override
    public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> createEnumerator(
            SplitEnumeratorContext<NumberSequenceSplit> context) {
        return ranges.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> restoreEnumerator(
            SplitEnumeratorContext<NumberSequenceSplit> context, Collection<NumberSequenceSplit> checkpoint) {
        return ranges.restoreEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<NumberSequenceSplit> getSplitSerializer() {
        return ranges.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<Collection<NumberSequenceSplit>> getEnumeratorCheckpointSerializer() {
        return ranges.getEnumeratorCheckpointSerializer();
    }

    /// Reads the positions of its ranges and emits the samples there.
    private static final class Reader extends IteratorSourceReaderBase<Long, byte[], NumberSequenceIterator, NumberSequenceSplit> {
        private final byte[][] records;

        Reader(SourceReaderContext context, byte[][] records) {
            super(context);
            this.records = records;
        }

        @Override
        protected byte[] convert(Long position) {
            return records[Math.toIntExact(position)];
        }
    }
}
