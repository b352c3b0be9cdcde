package dev.penstock.formats.zarr;

/// The Zarr specification a store is written to.
///
/// - `V2`: `.zarray`/`.zgroup`/`.zattrs`, chunk keys `i.j`, zlib; what Debian's zarr-python 2.13
///   reads (and zarr-python 3 with `zarr_format=2`).
/// - `V3`: one `zarr.json` per node (attributes inside), chunk keys `c/i/j`, the `bytes` codec
///   then `gzip`; what zarr-python 3 opens by default, and zarrita, tensorstore, zarrs.
///
/// Strings are variable-length UTF-8 in both (`vlen-utf8`: v2 object dtype with the numcodecs
/// filter, v3 data type `string`).
public enum ZarrFormat {
    V2, V3;

    /// `2` or `3` (also `v2`, `v3`); anything else fails naming the value and the choices.
    public static ZarrFormat parse(String text) {
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "2", "v2" -> V2;
            case "3", "v3" -> V3;
            default -> throw new IllegalArgumentException("a Zarr format is 2 or 3, got '" + text + "'");
        };
    }

    /// `2` or `3`.
    public int number() {
        return this == V2 ? 2 : 3;
    }
}
