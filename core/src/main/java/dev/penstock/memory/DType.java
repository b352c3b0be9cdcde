package dev.penstock.memory;

/// The element types a `Block` can hold. Complex types store real and imaginary parts
/// interleaved (`c64` = two `f32`, `c128` = two `f64`), as NumPy and CUDA do.
public enum DType {
    F32(4, false, "<f4"),
    F64(8, false, "<f8"),
    I32(4, false, "<i4"),
    I64(8, false, "<i8"),
    U8(1, false, "|u1"),
    C64(8, true, "<c8"),
    C128(16, true, "<c16");

    private final int byteSize;
    private final boolean complex;
    private final String numpyDescr;

    DType(int byteSize, boolean complex, String numpyDescr) {
        this.byteSize = byteSize;
        this.complex = complex;
        this.numpyDescr = numpyDescr;
    }

    /// Bytes one element occupies.
    public int byteSize() {
        return byteSize;
    }

    /// Whether the element is a (real, imaginary) pair.
    public boolean isComplex() {
        return complex;
    }

    /// The NumPy `descr` string of this type (little-endian).
    public String numpyDescr() {
        return numpyDescr;
    }

    /// The lower-case name used in options and messages: `f32`, `c128`, …
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /// Parses `f32`, `F32`, `float32`-style labels; fails naming the value and the choices.
    public static DType parse(String label) {
        String l = label.trim().toLowerCase(java.util.Locale.ROOT);
        for (DType t : values()) {
            if (t.label().equals(l)) {
                return t;
            }
        }
        switch (l) {
            case "float32": return F32;
            case "float64": return F64;
            case "int32": return I32;
            case "int64": return I64;
            case "uint8": return U8;
            case "complex64": return C64;
            case "complex128": return C128;
            default:
                throw new IllegalArgumentException("unknown dtype '" + label
                        + "': expected one of f32, f64, i32, i64, u8, c64, c128");
        }
    }
}
