package dev.penstock.cuda;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/// The kernels (`.entry`) of a PTX text and the byte size of each parameter, as the driver
/// reads them at launch: `CudaStream.launchKernel` refuses arguments of other sizes before they
/// reach the GPU (where a 4-byte value in an 8-byte slot reads garbage, or faults).
final class PtxEntries {
    private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+(\\w+)\\s*\\(([^)]*)\\)");
    private static final Pattern PARAM = Pattern.compile("\\.param\\s+(?:\\.align\\s+\\d+\\s+\\.b8\\s+\\w+\\[(\\d+)]|\\.[a-z](\\d+))");

    private PtxEntries() {
    }

    /// Every entry of `ptx` with its parameters' sizes in bytes, in order.
    static Map<String, List<Integer>> parse(String ptx) {
        Map<String, List<Integer>> entries = new LinkedHashMap<>();
        Matcher e = ENTRY.matcher(ptx);
        while (e.find()) {
            Matcher p = PARAM.matcher(e.group(2));
            List<Integer> sizes = new java.util.ArrayList<>();
            while (p.find()) {
                sizes.add(p.group(1) != null ? Integer.parseInt(p.group(1)) : Integer.parseInt(p.group(2)) / 8);
            }
            entries.put(e.group(1), List.copyOf(sizes));
        }
        return entries;
    }
}
