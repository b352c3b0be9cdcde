package dev.penstock.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/// Page compressors for parquet-java's writer straight from the codec libraries (zstd-jni,
/// snappy-java, lz4-java, the JDK's gzip), so that tests write compressed Parquet files without
/// Hadoop's codec factory (which builds a Hadoop `Configuration` and its dozens of jars).
final class DirectCodecs implements CompressionCodecFactory {
    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return new BytesInputCompressor() {
            @Override
            public BytesInput compress(BytesInput bytes) throws IOException {
                byte[] in = bytes.toByteArray();
                return BytesInput.from(switch (codec) {
                    case UNCOMPRESSED -> in;
                    case ZSTD -> com.github.luben.zstd.Zstd.compress(in, 3);
                    case SNAPPY -> org.xerial.snappy.Snappy.compress(in);
                    case LZ4_RAW -> net.jpountz.lz4.LZ4Factory.fastestInstance().fastCompressor().compress(in);
                    case GZIP -> gzip(in);
                    default -> throw new IOException("no test compressor for " + codec);
                });
            }

            @Override
            public CompressionCodecName getCodecName() {
                return codec;
            }

            @Override
            public void release() {
            }
        };
    }

    private static byte[] gzip(byte[] in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(in);
        }
        return out.toByteArray();
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        throw new UnsupportedOperationException("DirectCodecs only writes");
    }

    @Override
    public void release() {
    }
}
