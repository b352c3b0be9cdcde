package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/// The PTX parameter table the launch check relies on, read from the shipped kernels.
class PtxEntriesTest {
    @Test
    void theShippedKernelsDeclareTheParametersEncodeKernelsPasses() {
        Map<String, List<Integer>> e = PtxEntries.parse(new String(EncodeKernels.ptx(), StandardCharsets.US_ASCII));
        for (String io : List.of("f64_c128", "f32_c64", "f64_c64")) {
            assertThat(e.get("amplitude_" + io)).as(io).containsExactly(8, 8, 4, 4, 8); // x, stride, len, n, out
            assertThat(e.get("angle_" + io)).containsExactly(8, 8, 4, 8);
            assertThat(e.get("basis_" + io)).containsExactly(8, 8, 4, 8);
            assertThat(e.get("phase_" + io)).containsExactly(8, 8, 4, 8);
            assertThat(e.get("iqp_phases_" + io)).containsExactly(8, 8, 4, 4, 8);
        }
        assertThat(e.get("butterfly_c128")).containsExactly(4, 8, 8);
        assertThat(e.get("read_all")).containsExactly(8, 8, 8);
        assertThat(e).hasSize(18); // not the internal .func helpers
    }

    @Test
    void alignedByteArrayParametersCountTheirBytes() {
        String ptx = ".visible .entry k(\n\t.param .align 8 .b8 k_param_0[24],\n\t.param .f32 k_param_1\n)\n{\n}\n";
        assertThat(PtxEntries.parse(ptx)).containsEntry("k", List.of(24, 4));
    }
}
