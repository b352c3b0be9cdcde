package dev.penstock.atoms.stage;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;

/// Fuzzes the pipeline and potential spec parsers: any text gives stages whose every method and
/// potential builds, or an `IllegalArgumentException` with a message; never another exception.
class PipelineSpecFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void anySpecBuildsOrGivesAClearError(FuzzedDataProvider data) {
        String pipeline = data.consumeString(200);
        String potential = data.consumeRemainingAsString();
        try {
            for (List<PipelineSpec.Call> fused : PipelineSpec.parse(pipeline)) {
                for (PipelineSpec.Call c : fused) {
                    PerSystemStages.method(c, 1);
                }
            }
        } catch (IllegalArgumentException expected) {
            requireMessage(expected);
        }
        try {
            PipelineSpec.potential(potential).get();
        } catch (IllegalArgumentException expected) {
            requireMessage(expected);
        }
    }

    private static void requireMessage(IllegalArgumentException e) {
        if (e.getMessage() == null || e.getMessage().isBlank()) {
            throw new AssertionError("an error without a message", e);
        }
    }
}
