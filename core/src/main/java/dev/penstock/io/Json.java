package dev.penstock.io;

/// JSON text as Penstock's outputs write it (summaries, manifests, Zarr metadata): strings
/// ASCII-only, so that readers which decode as ASCII (zarr-python 2's metadata) read them too.
public final class Json {
    private Json() {
    }

    /// `s` as a JSON string: quotes and backslashes escaped, line breaks and tabs as `\n`, `\r`,
    /// `\t`, every other character outside printable ASCII as a backslash-u escape.
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"', '\\' -> b.append('\\').append(c);
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
