package dev.penstock.cuda;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/// Runs the `cuda`-tagged tests without Maven (the GPU machine has only the bundle): prints
/// JUnit's summary with every failure, then `cuda_tests_passed: N` and `cuda_tests_failed: M`;
/// exits 1 if any failed or none ran.
public final class GpuTestMain {
    private GpuTestMain() {
    }

    public static void main(String[] args) {
        CudaDriver.Probe p = CudaDriver.probe();
        System.out.println("cuda_probe: " + (p.usable() ? p.devices() + " device(s)" : "not usable: " + p.reason()));
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(CudaDeviceContractTest.class), selectClass(CudaDeviceGpuTest.class),
                        selectClass(RelaxKernelsGpuTest.class), selectClass(SnapStageGpuTest.class), selectClass(EamStageGpuTest.class))
                .filters(TagFilter.includeTags("cuda")).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary s = listener.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        s.printTo(out);
        s.printFailuresTo(out, 30);
        System.out.println("cuda_tests_passed: " + s.getTestsSucceededCount());
        System.out.println("cuda_tests_failed: " + (s.getTestsFailedCount() + s.getContainersFailedCount()));
        System.out.println("cuda_tests_skipped: " + (s.getTestsSkippedCount() + s.getTestsAbortedCount()));
        System.exit(s.getTestsFailedCount() + s.getContainersFailedCount() == 0 && s.getTestsSucceededCount() > 0 ? 0 : 1);
    }
}
