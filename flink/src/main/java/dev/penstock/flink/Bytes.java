package dev.penstock.flink;

import dev.penstock.stage.Codec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/// Samples to byte records and back through a `Codec` (what travels between Flink operators).
final class Bytes {
    private Bytes() {
    }

    static <S> byte[] encode(Codec<S> codec, S sample) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try {
            codec.write(sample, new DataOutputStream(b));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toByteArray();
    }

    static <S> S decode(Codec<S> codec, byte[] bytes) {
        try {
            return codec.read(new DataInputStream(new ByteArrayInputStream(bytes)));
        } catch (IOException e) {
            throw new UncheckedIOException("a sample record of " + bytes.length + " bytes could not be read", e);
        }
    }
}
