package dev.penstock.cli;

import dev.penstock.observe.Timeline;
import dev.penstock.io.PendingOutput;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/// Draws a `Timeline` as a PNG: one row per lane (encode: I/O threads, host, copy stream, compute
/// stream, writer; simulate: each stage worker, with steps, waits for input and waits for room),
/// one bar per span coloured by its kind, over wall time — so the overlap of
/// the stages (or its absence) is visible at a glance; each lane with its busy time, the
/// bottleneck named, the blank start labelled start-up and a first kernel far slower than the
/// rest labelled as the JIT's warm-up, the legend holding only the kinds that occur (`read`).
/// Plain Java 2D, headless.
final class TimelinePlot {
    private static final Map<String, Color> COLORS = new LinkedHashMap<>();

    static {
        COLORS.put("read", new Color(0x4C78A8));
        COLORS.put("wait for reads", new Color(0xDDDDDD)); // the host waiting for the I/O threads
        COLORS.put("wait for staging", new Color(0xBBBBBB));
        COLORS.put("fill staging", new Color(0x72B7B2));
        COLORS.put("copy", new Color(0xF58518));
        COLORS.put("kernel", new Color(0x54A24B));
        COLORS.put("wait for writer", new Color(0xE45756));
        COLORS.put("write", new Color(0xB279A2));
        COLORS.put("step", new Color(0x54A24B)); // simulate: a stage worker's steps
        COLORS.put("wait for input", new Color(0xBBBBBB));
        COLORS.put("wait for room", new Color(0xE45756));
        COLORS.put("write results", new Color(0xB279A2));
    }

    private TimelinePlot() {
    }

    /// What the picture says in words: each lane's busy time (its spans but waits), the busiest
    /// lane (the bottleneck: what the others wait for), the blank start before the first span
    /// (start-up: the JVM, opening the input, allocating), the first kernel when it ran at least
    /// three times the median kernel (the JIT's warm-up), and the kinds that occur (the legend).
    ///
    /// @param busyNs     busy ns per lane, in lane order
    /// @param bottleneck the busiest lane (null: no spans)
    /// @param startUpNs  ns before the first span began
    /// @param warmUp     the first kernel span when it was a warm-up, or null
    /// @param kinds      the span kinds that occur, in the legend's order
    record Reading(Map<String, Long> busyNs, String bottleneck, long startUpNs, Timeline.Span warmUp, List<String> kinds) {
    }

    static Reading read(List<Timeline.Span> spans) {
        Map<String, Long> busy = new LinkedHashMap<>();
        for (String lane : lanes(spans)) {
            busy.put(lane, 0L);
        }
        List<Long> kernels = new ArrayList<>();
        Timeline.Span firstKernel = null;
        long start = Long.MAX_VALUE;
        java.util.Set<String> kinds = new java.util.HashSet<>();
        for (Timeline.Span sp : spans) {
            kinds.add(sp.kind());
            start = Math.min(start, sp.startNs());
            if (!sp.kind().startsWith("wait")) {
                busy.merge(sp.lane(), sp.endNs() - sp.startNs(), Long::sum);
            }
            if (sp.kind().equals("kernel")) {
                kernels.add(sp.endNs() - sp.startNs());
                if (firstKernel == null || sp.startNs() < firstKernel.startNs()) {
                    firstKernel = sp;
                }
            }
        }
        String bottleneck = busy.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
        Timeline.Span warmUp = null;
        if (kernels.size() >= 3) {
            kernels.sort(Comparator.naturalOrder());
            long median = kernels.get(kernels.size() / 2);
            if (firstKernel.endNs() - firstKernel.startNs() >= 3 * Math.max(1, median)) {
                warmUp = firstKernel;
            }
        }
        List<String> legend = new ArrayList<>();
        for (String k : COLORS.keySet()) {
            if (kinds.contains(k)) {
                legend.add(k);
            }
        }
        for (String k : kinds) {
            if (!legend.contains(k)) {
                legend.add(k);
            }
        }
        return new Reading(busy, bottleneck, spans.isEmpty() ? 0 : Math.max(0, start), warmUp, legend);
    }

    static void write(Timeline timeline, Path file, String title) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Timeline.Span> spans = timeline.spans();
        List<String> lanes = lanes(spans);
        Reading reading = read(spans);
        int left = 240;
        int right = 30;
        int top = 50;
        int laneH = 26;
        int width = 1400;
        int plotW = width - left - right;
        int height = top + lanes.size() * laneH + 110;
        long endNs = Math.max(1, spans.stream().mapToLong(Timeline.Span::endNs).max().orElse(1));
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
            g.drawString(title, left, 25);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            if (reading.bottleneck() != null) {
                g.drawString(String.format(java.util.Locale.ROOT, "bottleneck: %s, busy %.1f ms of %.1f ms", reading.bottleneck(),
                        reading.busyNs().get(reading.bottleneck()) / 1e6, endNs / 1e6), left, 43);
            }
            for (int i = 0; i < lanes.size(); i++) {
                int y = top + i * laneH;
                g.setColor(i % 2 == 0 ? new Color(0xF4F4F4) : Color.WHITE);
                g.fillRect(left, y, plotW, laneH);
                g.setColor(Color.DARK_GRAY);
                g.drawString(String.format(java.util.Locale.ROOT, "%s  %.0f ms", lanes.get(i), reading.busyNs().get(lanes.get(i)) / 1e6), 10,
                        y + laneH / 2 + 5);
            }
            for (Timeline.Span s : spans) {
                int lane = lanes.indexOf(s.lane());
                int x0 = left + (int) ((double) Math.max(0, s.startNs()) / endNs * plotW);
                int x1 = left + (int) ((double) s.endNs() / endNs * plotW);
                boolean wait = s.kind().startsWith("wait");
                int y = top + lane * laneH + (wait ? laneH / 2 : 4);
                g.setColor(COLORS.getOrDefault(s.kind(), Color.GRAY));
                g.fillRect(x0, y, Math.max(1, x1 - x0), wait ? laneH / 2 - 4 : laneH - 8);
            }
            int axisY = top + lanes.size() * laneH;
            g.setColor(Color.DARK_GRAY);
            if (reading.startUpNs() > endNs / 50) { // the blank start, labelled rather than left unexplained
                int x1 = left + (int) ((double) reading.startUpNs() / endNs * plotW);
                g.drawLine(x1, top, x1, axisY);
                g.drawString("start-up", left + Math.max(2, (x1 - left) / 2 - 22), top + 14);
            }
            if (reading.warmUp() != null) {
                Timeline.Span w = reading.warmUp();
                int lane = lanes.indexOf(w.lane());
                int x0 = left + (int) ((double) Math.max(0, w.startNs()) / endNs * plotW);
                g.drawString("first chunk: JIT warm-up", x0, top + lane * laneH - 2);
            }
            g.setColor(Color.BLACK);
            g.setStroke(new BasicStroke(1));
            g.drawLine(left, axisY, left + plotW, axisY);
            double totalMs = endNs / 1e6;
            double step = niceStep(totalMs / 10);
            for (double t = 0; t <= totalMs + 1e-9; t += step) {
                int x = left + (int) (t / totalMs * plotW);
                g.drawLine(x, axisY, x, axisY + 5);
                g.drawString(String.format(java.util.Locale.ROOT, step < 1 ? "%.1f" : "%.0f", t), x - 10, axisY + 18);
            }
            g.drawString("wall time (ms)", left + plotW / 2 - 40, axisY + 34);
            int lx = left;
            int ly = axisY + 55;
            for (String kind : reading.kinds()) { // only what occurs
                g.setColor(COLORS.getOrDefault(kind, Color.GRAY));
                g.fillRect(lx, ly - 10, 14, 12);
                g.setColor(Color.BLACK);
                g.drawString(kind, lx + 18, ly);
                lx += 30 + g.getFontMetrics().stringWidth(kind);
            }
        } finally {
            g.dispose();
        }
        PendingOutput.write(file, tmp -> {
            if (!ImageIO.write(img, "png", tmp.toFile())) {
                throw new IOException(file + ": no PNG writer in this Java runtime");
            }
        });
    }

    private static List<String> lanes(List<Timeline.Span> spans) {
        List<String> io = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (Timeline.Span s : spans) {
            List<String> into = s.lane().startsWith("I/O") ? io : rest;
            if (!into.contains(s.lane())) {
                into.add(s.lane());
            }
        }
        io.sort(Comparator.naturalOrder());
        List<String> order = List.of("host", "copy stream", "compute stream", "writer");
        rest.sort(Comparator.<String>comparingInt(l -> order.indexOf(l) < 0 ? 99 : order.indexOf(l)).thenComparing(Comparator.naturalOrder()));
        List<String> all = new ArrayList<>(io);
        all.addAll(rest);
        return all;
    }

    private static double niceStep(double raw) {
        double p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= raw) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
