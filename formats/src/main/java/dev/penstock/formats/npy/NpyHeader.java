package dev.penstock.formats.npy;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/// The header of a `.npy` file:
///
/// ```
///   \x93NUMPY  major minor  HEADER_LEN (u16 LE in v1, u32 LE in v2)  {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }   \n
///   |<------------------------ a multiple of 64 bytes, padded with spaces ----------------------------------------------------->|
/// ```
///
/// @param dtype       element type (little-endian; `|u1` for bytes)
/// @param shape       the array's shape
/// @param dataOffset  where the data starts
public record NpyHeader(DType dtype, long[] shape, long dataOffset) {
    static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};

    @Override
    public String toString() {
        return "NpyHeader[" + dtype.numpyDescr() + " " + java.util.Arrays.toString(shape) + ", data at byte " + dataOffset + "]";
    }
    private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

    /// Bytes of data the header announces.
    public long dataBytes() {
        return Block.elementCount(shape) * dtype.byteSize();
    }

    /// Parses the header in `bytes` (the file's first bytes, at least 10), naming `file` on errors.
    static NpyHeader parse(Path file, byte[] bytes, long fileSize) {
        if (bytes.length < 10 || !Arrays.equals(Arrays.copyOf(bytes, 6), MAGIC)) {
            throw new NpyFormatException(file, 0, "expected the magic string \\x93NUMPY of a .npy file, found "
                    + printable(Arrays.copyOf(bytes, Math.min(6, bytes.length))));
        }
        int major = bytes[6] & 0xff;
        long headerLen;
        int lenBytes;
        if (major == 1) {
            headerLen = (bytes[8] & 0xff) | (bytes[9] & 0xff) << 8;
            lenBytes = 2;
        } else if (major == 2 || major == 3) {
            if (bytes.length < 12) {
                throw new NpyFormatException(file, 8, "expected a 4-byte header length, the file ends first");
            }
            headerLen = (bytes[8] & 0xffL) | (bytes[9] & 0xffL) << 8 | (bytes[10] & 0xffL) << 16 | (bytes[11] & 0xffL) << 24;
            lenBytes = 4;
        } else {
            throw new NpyFormatException(file, 6, "expected format version 1, 2 or 3, found " + major + "." + (bytes[7] & 0xff));
        }
        long start = 8 + lenBytes;
        if (start + headerLen > fileSize || start + headerLen > bytes.length) {
            throw new NpyFormatException(file, start, "the header is " + headerLen + " bytes long but the file ends at byte " + fileSize);
        }
        String text = new String(bytes, (int) start, (int) headerLen,
                major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        Matcher d = DESCR.matcher(text);
        Matcher f = FORTRAN.matcher(text);
        Matcher s = SHAPE.matcher(text);
        if (!d.find() || !f.find() || !s.find()) {
            throw new NpyFormatException(file, start, "expected a header dict with 'descr', 'fortran_order' and 'shape', found "
                    + text.strip());
        }
        DType dtype = dtypeOf(file, start, d.group(1));
        if (f.group(1).equals("True")) {
            throw new NpyFormatException(file, start, "the array is in Fortran order; Penstock reads C order only "
                    + "(save it with np.ascontiguousarray)");
        }
        long[] shape = parseShape(file, start, s.group(1));
        NpyHeader h = new NpyHeader(dtype, shape, start + headerLen);
        long end;
        try {
            end = Math.addExact(h.dataOffset, Math.multiplyExact(Block.elementCount(shape), (long) dtype.byteSize()));
        } catch (ArithmeticException e) {
            throw new NpyFormatException(file, start, "the header announces " + Arrays.toString(shape) + " " + d.group(1)
                    + ", more bytes than any file holds (a header written before its shape was known?)");
        }
        if (end > fileSize) {
            throw new NpyFormatException(file, h.dataOffset, "the header announces " + Arrays.toString(shape) + " " + d.group(1)
                    + " = " + h.dataBytes() + " bytes of data, but the file ends at byte " + fileSize + " (truncated)");
        }
        return h;
    }

    private static DType dtypeOf(Path file, long pos, String descr) {
        return switch (descr) {
            case "<f4" -> DType.F32;
            case "<f8" -> DType.F64;
            case "<c8" -> DType.C64;
            case "<c16" -> DType.C128;
            case "<i4" -> DType.I32;
            case "<i8" -> DType.I64;
            case "|u1", "<u1" -> DType.U8;
            default -> throw new NpyFormatException(file, pos, "expected dtype <f4, <f8, <c8, <c16, <i4, <i8 or |u1 "
                    + "(little-endian), found '" + descr + "'" + (descr.startsWith(">") ? " (big-endian: convert with .astype('<"
                    + descr.substring(1) + "'))" : ""));
        };
    }

    private static long[] parseShape(Path file, long pos, String inner) {
        List<Long> dims = new ArrayList<>();
        for (String part : inner.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            try {
                long v = Long.parseLong(p.endsWith("L") ? p.substring(0, p.length() - 1) : p);
                if (v < 0) {
                    throw new NumberFormatException();
                }
                dims.add(v);
            } catch (NumberFormatException e) {
                throw new NpyFormatException(file, pos, "expected a shape of non-negative integers, found (" + inner + ")");
            }
        }
        return dims.stream().mapToLong(Long::longValue).toArray();
    }

    /// The header bytes for `dtype` and `shape`, padded so that the data starts at a multiple of
    /// 64, at least `minTotal` bytes long (to leave room for a shape patched in later).
    static byte[] encode(DType dtype, long[] shape, int minTotal) {
        StringBuilder sb = new StringBuilder("{'descr': '").append(dtype.numpyDescr()).append("', 'fortran_order': False, 'shape': (");
        for (int i = 0; i < shape.length; i++) {
            sb.append(shape[i]);
            if (shape.length == 1 || i < shape.length - 1) {
                sb.append(", ");
            }
        }
        String dict = sb.toString().stripTrailing() + "), }";
        boolean v2 = dict.length() + 11 > 65535;
        int prefix = v2 ? 12 : 10;
        int total = Math.max(minTotal, prefix + dict.length() + 1);
        total = (total + 63) / 64 * 64;
        byte[] out = new byte[total];
        System.arraycopy(MAGIC, 0, out, 0, 6);
        out[6] = (byte) (v2 ? 2 : 1);
        out[7] = 0;
        int headerLen = total - prefix;
        out[8] = (byte) headerLen;
        out[9] = (byte) (headerLen >>> 8);
        if (v2) {
            out[10] = (byte) (headerLen >>> 16);
            out[11] = (byte) (headerLen >>> 24);
        }
        byte[] d = dict.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(d, 0, out, prefix, d.length);
        Arrays.fill(out, prefix + d.length, total - 1, (byte) ' ');
        out[total - 1] = '\n';
        return out;
    }

    private static String printable(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(x >= 32 && x < 127 ? String.valueOf((char) x) : String.format("\\x%02x", x & 0xff));
        }
        return "'" + sb + "'";
    }
}
