package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/// `bench … --json`: the figures as one JSON object, numbers as numbers, everything else a
/// string, escaped as JSON wants it.
class JsonFiguresTest {
    @Test
    void figuresBecomeOneJsonObjectInOrder() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("atoms", "32000");
        f.put("ratio_vs_lammps", "0.590");
        f.put("atom_steps_per_s", "1.02e+06");
        f.put("max_energy_diff", "-3.7e-14");
        f.put("peer", "LAMMPS \"29 Sep 2021\"\\n");
        f.put("not_a_number", "1.");
        f.put("unit", "Å");
        assertThat(JsonFigures.toJson(f)).isEqualTo("{\"atoms\": 32000, \"ratio_vs_lammps\": 0.590, \"atom_steps_per_s\": 1.02e+06, "
                + "\"max_energy_diff\": -3.7e-14, \"peer\": \"LAMMPS \\\"29 Sep 2021\\\"\\\\n\", \"not_a_number\": \"1.\", "
                + "\"unit\": \"\\u00c5\"}");
    }

    @Test
    void benchHelpOffersJson() {
        assertThat(MainTest.run(0, "bench", "md", "--help")).contains("--json");
    }
}
