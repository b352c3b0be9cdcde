package dev.penstock.flink;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/// The `--key value` arguments a job jar's `main` gets from `flink run`.
final class JobArgs {
    private JobArgs() {
    }

    /// Parses `args` against `keys`; an unknown key, a missing value or a missing `required` key
    /// is an error naming the option (and the options there are).
    static Map<String, String> parse(String[] args, Collection<String> keys, List<String> required) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || !keys.contains(a.substring(2))) {
                throw new IllegalArgumentException("unknown option '" + a + "' (options: --" + String.join(", --", keys.stream().sorted()
                        .toList()) + ")");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option '" + a + "' needs a value");
            }
            o.put(a.substring(2), args[++i]);
        }
        for (String r : required) {
            if (!o.containsKey(r)) {
                throw new IllegalArgumentException("missing option '--" + r + "'");
            }
        }
        return o;
    }

    /// Option `key` of `o` as a whole number, `fallback` when it is not given; a value that is not
    /// one is an error naming the option.
    static long number(Map<String, String> o, String key, long fallback) {
        return parsed(o, key, fallback, Long::parseLong, "a whole number");
    }

    /// As `number`, an `int`.
    static int integer(Map<String, String> o, String key, int fallback) {
        long n = number(o, key, fallback);
        if (n != (int) n) {
            throw new IllegalArgumentException("option '--" + key + "': " + n + " is too large");
        }
        return (int) n;
    }

    /// Option `key` of `o` as a number (`Infinity` allowed), `fallback` when it is not given; a
    /// value that is not one is an error naming the option.
    static double decimal(Map<String, String> o, String key, double fallback) {
        return parsed(o, key, fallback, Double::parseDouble, "a number");
    }

    /// Option `key` parsed by `parse` (`fallback` when absent); a `NumberFormatException` is an
    /// error naming the option and saying it expected `what`.
    private static <T> T parsed(Map<String, String> o, String key, T fallback, java.util.function.Function<String, T> parse, String what) {
        String v = o.get(key);
        try {
            return v == null ? fallback : parse.apply(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option '--" + key + "': expected " + what + ", got '" + v + "'");
        }
    }
}
