package dev.penstock.stage;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

/// An overflow tier on disk: samples appended to one file (length-prefixed records written by
/// a `Codec`) and read back oldest first, within a budget of bytes. The file is reset whenever
/// it empties and deleted by `close()`. Thread-safe.
///
/// @param <S> the sample type
public final class DiskOverflow<S> implements Sink.Overflow<S> {
    private final Path file;
    private final Codec<S> codec;
    private final long maxBytes;
    private final RandomAccessFile raf;
    private long readPos;
    private long writePos;
    private long held;
    private S head;
    private long headEnd;

    /// A tier in a new file in `dir`, holding up to `maxBytes` bytes of records.
    public DiskOverflow(Path dir, Codec<S> codec, long maxBytes) throws IOException {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("disk overflow: 'maxBytes' must be positive, got " + maxBytes);
        }
        if (!Files.isDirectory(dir)) {
            // a folder made for the run's own spill is the user's alone (an existing one keeps its mode)
            Files.createDirectories(dir, PrivateFiles.directoryAttributes(dir));
        }
        this.file = Files.createTempFile(dir, "penstock-overflow-", ".bin", PrivateFiles.fileAttributes(dir));
        this.codec = codec;
        this.maxBytes = maxBytes;
        this.raf = new RandomAccessFile(file.toFile(), "rw");
    }

    @Override
    public synchronized boolean offer(S sample) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        codec.write(sample, new DataOutputStream(bytes));
        byte[] record = bytes.toByteArray();
        if (writePos - readPos + 4 + record.length > maxBytes) {
            return false;
        }
        raf.seek(writePos);
        raf.writeInt(record.length);
        raf.write(record);
        writePos += 4 + record.length;
        held++;
        return true;
    }

    @Override
    public synchronized S peek() throws IOException {
        if (held == 0) {
            return null;
        }
        if (head == null) {
            raf.seek(readPos);
            int len = raf.readInt();
            byte[] record = new byte[len];
            raf.readFully(record);
            head = codec.read(new DataInputStream(new java.io.ByteArrayInputStream(record)));
            headEnd = readPos + 4 + len;
        }
        return head;
    }

    @Override
    public synchronized S poll() throws IOException {
        S s = peek();
        if (s == null) {
            return null;
        }
        head = null;
        readPos = headEnd;
        held--;
        if (held == 0) { // empty: start the file over
            readPos = 0;
            writePos = 0;
            raf.setLength(0);
        }
        return s;
    }

    @Override
    public String name() {
        return "disk " + file.getFileName();
    }

    @Override
    public synchronized long held() {
        return held;
    }

    /// The file the tier writes.
    public Path file() {
        return file;
    }

    @Override
    public synchronized void close() throws IOException {
        raf.close();
        Files.deleteIfExists(file);
    }
}
