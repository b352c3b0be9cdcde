package dev.penstock.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/// `Json.parse`: what zarr-python and Python's `json` write (objects in order, integers as
/// longs, NaN and the infinities, escapes), and malformed text refused naming the offset.
class JsonTest {
    @Test
    void parsesWhatPythonWrites() {
        Object v = Json.parse("""
                {"zarr_format": 2, "shape": [1000, 37], "fill_value": NaN, "lo": -Infinity, "x": 1.5e-3,
                 "filters": null, "ok": true, "name": "a\\"b\\\\c\\u00e9\\n", "nested": {"id": "blosc", "list": []}}
                """);
        assertThat(v).isInstanceOf(Map.class);
        Map<?, ?> m = (Map<?, ?>) v;
        assertThat(List.copyOf(m.keySet())).isEqualTo(List.of("zarr_format", "shape", "fill_value", "lo", "x", "filters", "ok", "name", "nested"));
        assertThat(m.get("zarr_format")).isEqualTo(2L);
        assertThat(m.get("shape")).isEqualTo(List.of(1000L, 37L));
        assertThat((Double) m.get("fill_value")).isNaN();
        assertThat(m.get("lo")).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(m.get("x")).isEqualTo(1.5e-3);
        assertThat(m.containsKey("filters")).isTrue();
        assertThat(m.get("filters")).isNull();
        assertThat(m.get("ok")).isEqualTo(true);
        assertThat(m.get("name")).isEqualTo("a\"b\\c\u00e9\n");
        assertThat(m.get("nested")).isEqualTo(Map.of("id", "blosc", "list", List.of()));
        assertThat(Json.parse(Json.quote("tab\there \u2603"))).isEqualTo("tab\there \u2603"); // quote's output reads back
    }

    @Test
    void malformedTextIsRefusedNamingWhere() {
        for (String bad : new String[] {"{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "\"open", "{} x", "", "[1, -]"}) {
            assertThatThrownBy(() -> Json.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("malformed JSON at character ");
        }
    }
}
