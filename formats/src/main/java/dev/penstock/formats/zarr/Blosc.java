package dev.penstock.formats.zarr;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/// Decompression of a Blosc 1 frame, as numcodecs' `Blosc` codec and Zarr v3's `blosc` codec
/// write it: a 16-byte header (format version, codec version, flags, type size, bytes, block size,
/// compressed bytes), then either the bytes as they are (flag 0x2) or the offset of each block
/// and the blocks. A block is one stream, or — when its elements are few enough bytes and the
/// flags do not say otherwise (0x10) — one stream per byte of the element; a stream whose
/// compressed size equals its size is stored raw. Byte shuffle (flag 0x1) is undone per block.
/// Codecs LZ4/LZ4HC (format 1), zlib (3) and Zstandard (4); BloscLZ, Snappy and bit shuffle
/// are refused naming them.
final class Blosc {
    private static final int HEADER = 16;
    private static final int MAX_SPLITS = 16;
    private static final int MIN_BUFFERSIZE = 128;

    private Blosc() {
    }

    /// The bytes of frame `in`, which must hold `expected` bytes (a chunk's size: checked before
    /// anything is allocated).
    static byte[] decompress(byte[] in, int expected) throws IOException {
        if (in.length < HEADER) {
            throw new IOException("a Blosc frame of " + in.length + " bytes is shorter than its 16-byte header");
        }
        ByteBuffer b = ByteBuffer.wrap(in).order(ByteOrder.LITTLE_ENDIAN);
        int flags = in[2] & 0xff;
        int typesize = Math.max(1, in[3] & 0xff);
        int nbytes = b.getInt(4);
        int blocksize = b.getInt(8);
        int cbytes = b.getInt(12);
        if (nbytes != expected) {
            throw new IOException("a Blosc frame of " + nbytes + " bytes where the chunk holds " + expected);
        }
        if (blocksize <= 0 && nbytes > 0 || blocksize > Math.max(nbytes, 1) || cbytes > in.length || (in[2] & 0x2) != 0 && HEADER + (long) nbytes > in.length) {
            throw new IOException("a Blosc header that does not add up (" + nbytes + " bytes, blocks of " + blocksize + ", " + cbytes
                    + " compressed, " + in.length + " stored)");
        }
        byte[] out = new byte[nbytes];
        if ((flags & 0x2) != 0) { // stored as they are
            System.arraycopy(in, HEADER, out, 0, nbytes);
            return out;
        }
        if ((flags & 0x4) != 0) {
            throw new IOException("bit shuffle is not read (write with byte shuffle or none)");
        }
        int codec = (flags & 0xe0) >> 5;
        String name = switch (codec) {
            case 0 -> "BloscLZ";
            case 1 -> "LZ4";
            case 2 -> "Snappy";
            case 3 -> "zlib";
            case 4 -> "Zstandard";
            default -> "codec " + codec;
        };
        if (codec != 1 && codec != 3 && codec != 4) {
            throw new IOException("Blosc's " + name + " is not read (LZ4, LZ4HC, zlib and Zstandard are)");
        }
        boolean shuffled = (flags & 0x1) != 0 && typesize > 1;
        boolean dontSplit = (flags & 0x10) != 0;
        int blocks = nbytes == 0 ? 0 : nbytes / blocksize + (nbytes % blocksize > 0 ? 1 : 0);
        if (HEADER + 4L * blocks > in.length) {
            throw new IOException("a Blosc frame of " + in.length + " bytes cannot hold the offsets of its " + blocks + " blocks");
        }
        byte[] tmp = new byte[blocksize];
        for (int k = 0; k < blocks; k++) {
            boolean leftover = k == blocks - 1 && nbytes % blocksize > 0;
            int bsize = leftover ? nbytes % blocksize : blocksize;
            int splits = !dontSplit && typesize <= MAX_SPLITS && bsize / typesize >= MIN_BUFFERSIZE && !leftover ? typesize : 1;
            int neblock = bsize / splits;
            int src = b.getInt(HEADER + 4 * k);
            byte[] dst = shuffled ? tmp : out;
            int at = shuffled ? 0 : k * blocksize;
            for (int j = 0; j < splits; j++) {
                int csize = b.getInt(src);
                src += 4;
                if (csize < 0 || src + csize > in.length) {
                    throw new IOException("block " + k + " overruns the frame");
                }
                if (csize == neblock) {
                    System.arraycopy(in, src, dst, at, neblock);
                } else {
                    int n = switch (codec) {
                        case 1 -> net.jpountz.lz4.LZ4Factory.fastestJavaInstance().safeDecompressor().decompress(in, src, csize, dst, at,
                                neblock);
                        case 3 -> inflate(in, src, csize, dst, at, neblock);
                        default -> (int) com.github.luben.zstd.Zstd.decompressByteArray(dst, at, neblock, in, src, csize);
                    };
                    if (n != neblock) {
                        throw new IOException("block " + k + " decompresses to " + n + " bytes, not " + neblock);
                    }
                }
                src += csize;
                at += neblock;
            }
            if (shuffled) { // byte j of element i was at j * elements + i; the bytes past the last whole element stay
                int elements = bsize / typesize;
                int base = k * blocksize;
                for (int i = 0; i < elements; i++) {
                    for (int j = 0; j < typesize; j++) {
                        out[base + i * typesize + j] = tmp[j * elements + i];
                    }
                }
                int whole = elements * typesize;
                System.arraycopy(tmp, whole, out, base + whole, bsize - whole);
            }
        }
        return out;
    }

    private static int inflate(byte[] in, int from, int length, byte[] out, int at, int size) throws IOException {
        java.util.zip.Inflater inf = new java.util.zip.Inflater();
        try {
            inf.setInput(in, from, length);
            int n = 0;
            while (n < size && !inf.finished()) {
                int k = inf.inflate(out, at + n, size - n);
                if (k == 0 && (inf.needsInput() || inf.needsDictionary())) {
                    break;
                }
                n += k;
            }
            return n;
        } catch (java.util.zip.DataFormatException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            inf.end();
        }
    }
}
