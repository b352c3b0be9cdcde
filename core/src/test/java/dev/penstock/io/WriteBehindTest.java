package dev.penstock.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteBehindTest {
    @TempDir
    Path dir;

    @Test
    void aFlushStartsEachTimeEnoughBytesAreWrittenAndNeverTwoAtOnce() throws Exception {
        try (Counting ch = new Counting(FileChannel.open(dir.resolve("out"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
            WriteBehind wb = new WriteBehind(ch, 1 << 20);
            ByteBuffer block = ByteBuffer.allocateDirect(256 << 10);
            for (int i = 0; i < 3; i++) { // 768 KiB: not yet
                ch.write(block.clear());
                wb.wrote(block.capacity());
            }
            assertThat(wb.flushesStarted()).isZero();
            ch.write(block.clear());
            wb.wrote(block.capacity()); // 1 MiB: the first flush
            assertThat(wb.flushesStarted()).isEqualTo(1);
            wb.finish(); // waits for that flush
            ch.gate = new CountDownLatch(1); // the next flush blocks in force() until released
            for (int i = 0; i < 4; i++) {
                ch.write(block.clear());
                wb.wrote(block.capacity());
            }
            assertThat(wb.flushesStarted()).isEqualTo(2);
            for (int i = 0; i < 12; i++) { // 3 MiB more while the second flush is held: no third
                ch.write(block.clear());
                wb.wrote(block.capacity());
            }
            assertThat(wb.flushesStarted()).isEqualTo(2);
            assertThat(ch.inForce.get()).isLessThanOrEqualTo(1);
            ch.gate.countDown();
            wb.finish();
            assertThat(ch.forces.get()).isEqualTo(2);
            assertThat(ch.maxInForce.get()).isEqualTo(1);
            wb.close();
        }
    }

    @Test
    void aFailedFlushFailsTheNextWriteAndTheFinish() throws Exception {
        try (Counting ch = new Counting(FileChannel.open(dir.resolve("out"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
            ch.failure = new IOException("No space left on device");
            WriteBehind wb = new WriteBehind(ch, 10);
            wb.wrote(10);
            assertThatThrownBy(wb::finish).isInstanceOf(IOException.class).hasMessageContaining("No space left on device");
            assertThatThrownBy(() -> wb.wrote(1)).hasMessageContaining("flushing a file being written failed");
            wb.close(); // a discarded output: its flush's failure no longer matters
        }
    }

    /// A file channel that counts `force` calls, can hold them at a gate or fail them.
    private static final class Counting extends FileChannel {
        final FileChannel inner;
        final AtomicInteger forces = new AtomicInteger();
        final AtomicInteger inForce = new AtomicInteger();
        final AtomicInteger maxInForce = new AtomicInteger();
        volatile CountDownLatch gate;
        volatile IOException failure;

        Counting(FileChannel inner) {
            this.inner = inner;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            int now = inForce.incrementAndGet();
            maxInForce.accumulateAndGet(now, Math::max);
            try {
                CountDownLatch g = gate;
                if (g != null) {
                    g.await();
                }
                if (failure != null) {
                    throw failure;
                }
                inner.force(metaData);
                forces.incrementAndGet();
            } catch (InterruptedException e) {
                throw new IOException(e);
            } finally {
                inForce.decrementAndGet();
            }
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return inner.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return inner.read(dsts, offset, length);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return inner.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return inner.write(srcs, offset, length);
        }

        @Override
        public long position() throws IOException {
            return inner.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            inner.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return inner.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            inner.truncate(size);
            return this;
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return inner.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            return inner.transferFrom(src, position, count);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return inner.read(dst, position);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return inner.write(src, position);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return inner.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return inner.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return inner.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            inner.close();
        }
    }
}
