package dev.penstock.io;

/// JSON text as Penstock's outputs write it (summaries, manifests, Zarr metadata): strings
/// ASCII-only, so that readers which decode as ASCII (zarr-python 2's metadata) read them too;
/// and JSON as other tools write it, parsed (`parse`: Zarr metadata Penstock reads).
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

    /// The value of the JSON text `text`: a `Map<String, Object>` (insertion order) for an object,
    /// a `List<Object>` for an array, a `String`, a `Double` or `Long` (an integer without fraction
    /// or exponent that fits), a `Boolean`, or null; also `NaN`, `Infinity` and `-Infinity` as
    /// numbers (Python's `json` writes them). Malformed text fails with an
    /// `IllegalArgumentException` naming the character offset.
    public static Object parse(String text) {
        Parser p = new Parser(text);
        Object v = p.value();
        p.space();
        if (p.at < text.length()) {
            throw p.error("text after the value");
        }
        return v;
    }

    private static final class Parser {
        private final String s;
        private int at;

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("malformed JSON at character " + at + ": " + what);
        }

        void space() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
        }

        boolean take(String word) {
            if (s.startsWith(word, at)) {
                at += word.length();
                return true;
            }
            return false;
        }

        Object value() {
            space();
            if (at >= s.length()) {
                throw error("the text ends where a value should be");
            }
            char c = s.charAt(at);
            if (c == '{') {
                at++;
                java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                space();
                if (take("}")) {
                    return m;
                }
                do {
                    space();
                    if (at >= s.length() || s.charAt(at) != '"') {
                        throw error("expected a quoted key");
                    }
                    String k = string();
                    space();
                    if (!take(":")) {
                        throw error("expected ':'");
                    }
                    m.put(k, value());
                    space();
                } while (take(","));
                if (!take("}")) {
                    throw error("expected ',' or '}'");
                }
                return m;
            }
            if (c == '[') {
                at++;
                java.util.List<Object> l = new java.util.ArrayList<>();
                space();
                if (take("]")) {
                    return l;
                }
                do {
                    l.add(value());
                    space();
                } while (take(","));
                if (!take("]")) {
                    throw error("expected ',' or ']'");
                }
                return l;
            }
            if (c == '"') {
                return string();
            }
            if (take("true")) {
                return Boolean.TRUE;
            }
            if (take("false")) {
                return Boolean.FALSE;
            }
            if (take("null")) {
                return null;
            }
            if (take("NaN")) {
                return Double.NaN;
            }
            if (take("Infinity")) {
                return Double.POSITIVE_INFINITY;
            }
            if (take("-Infinity")) {
                return Double.NEGATIVE_INFINITY;
            }
            int start = at;
            while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
                at++;
            }
            String n = s.substring(start, at);
            if (n.isEmpty()) {
                throw error("unexpected '" + c + "'");
            }
            try {
                if (n.matches("-?\\d{1,18}")) {
                    return Long.parseLong(n);
                }
                return Double.parseDouble(n);
            } catch (NumberFormatException e) {
                at = start;
                throw error("not a number: " + n);
            }
        }

        String string() {
            at++; // the opening quote
            StringBuilder b = new StringBuilder();
            while (true) {
                if (at >= s.length()) {
                    throw error("a string is not closed");
                }
                char c = s.charAt(at++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (at >= s.length()) {
                    throw error("a string is not closed");
                }
                char e = s.charAt(at++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        if (at + 4 > s.length()) {
                            throw error("a \\u escape needs four hex digits");
                        }
                        try {
                            b.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
                        } catch (NumberFormatException x) {
                            throw error("a \\u escape needs four hex digits");
                        }
                        at += 4;
                    }
                    default -> b.append(e); // \" \\ \/
                }
            }
        }
    }
}
