package dev.penstock.atoms.neighbor;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.device.Crew;
import java.util.Arrays;

/// A half neighbour list (each pair once) with a skin: pairs closer than `cutoff + skin` at the
/// last build, each with the periodic image shift that brings atom j next to atom i.
///
/// Rebuild rule: rebuild when any atom has moved more than `skin / 2` since the last build.
/// Two atoms can then have closed in by at most `skin`, so a pair inside `cutoff` now was inside
/// `cutoff + skin` at the build: no pair is ever missed. Or, asked (`rebuildEvery`), every n
/// updates unchecked, as LAMMPS's `neigh_modify every n check no`, the builds after which two
/// atoms could have closed in by more than the skin counted.
///
/// Building: cell lists (bins in fractional coordinates at least `(cutoff + skin) / 2` apart
/// across their faces, the 125 bins within two of an atom's bin, each pair found once from the
/// half of them that come after it; periodic wrap-around; orthorhombic and triclinic cells) when
/// every periodic axis is at least 2.5 (cutoff + skin) long (five bins); otherwise an all-pairs
/// search over the needed periodic images (small boxes). The bins a bin searches, and their box
/// shifts, are worked out once per bin.
///
/// Why one file of this length: the list's layout (per-atom `start`/`end`, image codes and their
/// shift table) is written by the build and read by every accessor; the cell build, its stencil
/// and the all-pairs fallback (`AllPairs`, `PairBuffer` already apart) share those private arrays.
public final class NeighborList {
    private final double cutoff;
    private final double skin;
    private PairBuffer main = new PairBuffer();
    private PairBuffer[] parts = new PairBuffer[0];
    private int[] start = new int[1];
    private int[] end = new int[1];
    private static final int MAX_IMAGE_RANGE = 15; // (2·15 + 1)³ codes fit a short
    private int imageRange;       // image counts per axis lie in [-imageRange, imageRange]
    private double[] imageShift = new double[3]; // table: code -> (sx, sy, sz)
    private double[] builtAt = new double[0];
    private Cell builtCell; // the cell of the last build, and the one the shift table is of now
    private Cell shiftCell;
    private long shiftVersion; // every build and every refresh of the shift table
    private long builds;
    private long generation; // every build, rebuildAt's too (builds may be set back)
    private int every; // 0: the displacement rule; n: every n updates, unchecked
    private int sinceBuild;
    private long dangerous;
    private FullList full;

    /// A list for interactions up to `cutoff`, built with `skin` to spare.
    public NeighborList(double cutoff, double skin) {
        if (!(cutoff > 0) || Double.isInfinite(cutoff)) {
            throw new IllegalArgumentException("neighbour list: 'cutoff' must be positive and finite, got " + cutoff);
        }
        if (!(skin >= 0)) {
            throw new IllegalArgumentException("neighbour list: 'skin' must be non-negative, got " + skin);
        }
        this.cutoff = cutoff;
        this.skin = skin;
    }

    /// Rebuilds if the rule says so (or on first use); returns whether it rebuilt.
    public boolean update(AtomicSystem s) {
        return update(s, null);
    }

    /// Rebuilds every `n` updates instead, whatever the atoms did (LAMMPS's `neigh_modify every
    /// n delay 0 check no`: no displacement measured between builds, so a pair that came from
    /// beyond `cutoff + skin` to inside the cutoff between two builds is missed); 0, the default,
    /// is the displacement rule. Each such build that finds two atoms moved more than the skin
    /// together since the last (the two largest displacements) is counted (`dangerousBuilds`):
    /// pairs may have been missed before it.
    public void rebuildEvery(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("neighbour list: 'every' must be 0 (rebuild when an atom has moved half the skin) or "
                    + "positive, got " + n);
        }
        every = n;
    }

    /// Builds under `rebuildEvery` after which the two largest displacements since the build
    /// before added up to more than the skin.
    public long dangerousBuilds() {
        return dangerous;
    }

    /// Updates since the last build (what `rebuildEvery` counts; a checkpoint keeps it).
    public int sinceBuild() {
        return sinceBuild;
    }

    /// Sets the updates since the last build (restoring a checkpoint).
    public void sinceBuild(int n) {
        sinceBuild = n;
    }

    /// The sum of the two largest displacements since the last build: how much closer any two
    /// atoms can have come (more than the skin: a pair may have come inside the cutoff unlisted).
    private double twoLargestDisplacements(double[] r) {
        double first = 0;
        double second = 0;
        for (int i = 0; i < r.length; i += 3) {
            double dx = r[i] - builtAt[i];
            double dy = r[i + 1] - builtAt[i + 1];
            double dz = r[i + 2] - builtAt[i + 2];
            double d2 = dx * dx + dy * dy + dz * dz;
            if (d2 > second) {
                if (d2 > first) {
                    second = first;
                    first = d2;
                } else {
                    second = d2;
                }
            }
        }
        return Math.sqrt(first) + Math.sqrt(second);
    }

    private double maxDisplacement(double[] r) {
        double max = 0;
        for (int i = 0; i < r.length; i += 3) {
            double dx = r[i] - builtAt[i];
            double dy = r[i + 1] - builtAt[i + 1];
            double dz = r[i + 2] - builtAt[i + 2];
            max = Math.max(max, dx * dx + dy * dy + dz * dz);
        }
        return Math.sqrt(max);
    }

    /// Builds the list now, on the calling thread.
    public void build(AtomicSystem s) {
        build(s, null);
    }

    /// Rebuilds if the rule says so, the cell scan split over `crew`'s threads (null: the
    /// caller alone; the list is the same either way); returns whether it rebuilt.
    ///
    /// A cell changed since the last build (a barostat's: `AtomicSystem.cell(Cell)`) keeps the
    /// list's pairs, their image codes now meaning the new cell's translations (the shift table
    /// is remade); the rule then measures each atom's displacement from where the cell's
    /// deformation alone would have taken it, u_i = r_i − s_i·H (s_i its fractional coordinates
    /// at the build, H the new cell), and rebuilds unless 2·max|u| + ‖M − I‖·(cutoff + skin) ≤
    /// skin, M = H_built⁻¹·H: a pair then closer than the cutoff was within cutoff + skin at the
    /// build (|d| ≥ σ_min(M)·|d_built| − 2·max|u|, σ_min(M) ≥ 1 − ‖M − I‖_F). Only differences of
    /// u enter d, so max|u − u_0| (u_0 the first atom's) serves as well: it takes out the common
    /// translation a dilation about the box's centre gives every atom (a barostat's), which
    /// would otherwise rebuild a large box at every small strain.
    public boolean update(AtomicSystem s, Crew crew) {
        double[] r = s.positions();
        boolean built = builtAt.length == r.length;
        Cell cell = s.cell();
        boolean strained = built && !sameVectors(cell, builtCell);
        if (every > 0 && built) {
            if (++sinceBuild < every) {
                reshift(cell);
                return false;
            }
            if (twoLargestDisplacements(r) > skin) {
                dangerous++;
            }
        } else if (built && (strained ? withinStrainedSkin(r, cell) : maxDisplacement(r) <= skin / 2)) {
            reshift(cell);
            return false;
        }
        build(s, crew);
        return true;
    }

    private static boolean sameVectors(Cell a, Cell b) {
        if (a == b) {
            return true;
        }
        for (int d = 0; d < 3; d++) {
            for (int e = 0; e < 3; e++) {
                if (Double.doubleToLongBits(a.vector(d, e)) != Double.doubleToLongBits(b.vector(d, e))) {
                    return false;
                }
            }
        }
        return true;
    }

    /// The shift table remade for `cell` when it is not the table's cell (the pairs and their
    /// codes kept).
    private void reshift(Cell cell) {
        if (sameVectors(cell, shiftCell)) {
            shiftCell = cell;
            return;
        }
        fillShifts(cell);
        shiftCell = cell;
        shiftVersion++;
    }

    private void fillShifts(Cell cell) {
        int side = 2 * imageRange + 1;
        if (imageShift.length != 3 * side * side * side) {
            imageShift = new double[3 * side * side * side];
        }
        for (int a = -imageRange; a <= imageRange; a++) {
            for (int b = -imageRange; b <= imageRange; b++) {
                for (int c = -imageRange; c <= imageRange; c++) {
                    int code = codeOf(a, b, c);
                    for (int e = 0; e < 3; e++) {
                        imageShift[3 * code + e] = cell.translation(a, b, c, e);
                    }
                }
            }
        }
    }

    /// The rule under a deformed cell (`update`): whether no pair can have come inside the
    /// cutoff unlisted. A cell with a free axis is never deformed in place: it rebuilds.
    private boolean withinStrainedSkin(double[] r, Cell cell) {
        for (int d = 0; d < 3; d++) {
            if (!cell.periodic(d)) {
                return false;
            }
        }
        double strain = 0; // ‖M − I‖_F, M = H_built⁻¹·H: M_ij = Σ_k (H_built⁻¹)_ik · H_kj
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double m = 0;
                for (int k = 0; k < 3; k++) {
                    m += builtCell.fractional(k, i == 0 ? 1 : 0, i == 1 ? 1 : 0, i == 2 ? 1 : 0) * cell.vector(k, j);
                }
                m -= i == j ? 1 : 0;
                strain += m * m;
            }
        }
        double room = skin - Math.sqrt(strain) * (cutoff + skin);
        if (!(room > 0)) {
            return false;
        }
        double max = 0; // max |u|²
        double maxFirst = 0; // max |u − u_0|²: a dilation about any fixed point moves every u alike
        double fx = 0;
        double fy = 0;
        double fz = 0;
        for (int i = 0; i < r.length; i += 3) {
            double s0 = builtCell.fractional(0, builtAt[i], builtAt[i + 1], builtAt[i + 2]);
            double s1 = builtCell.fractional(1, builtAt[i], builtAt[i + 1], builtAt[i + 2]);
            double s2 = builtCell.fractional(2, builtAt[i], builtAt[i + 1], builtAt[i + 2]);
            double ux = r[i] - (s0 * cell.vector(0, 0) + s1 * cell.vector(1, 0) + s2 * cell.vector(2, 0));
            double uy = r[i + 1] - (s0 * cell.vector(0, 1) + s1 * cell.vector(1, 1) + s2 * cell.vector(2, 1));
            double uz = r[i + 2] - (s0 * cell.vector(0, 2) + s1 * cell.vector(1, 2) + s2 * cell.vector(2, 2));
            if (i == 0) {
                fx = ux;
                fy = uy;
                fz = uz;
            }
            max = Math.max(max, ux * ux + uy * uy + uz * uz);
            maxFirst = Math.max(maxFirst, (ux - fx) * (ux - fx) + (uy - fy) * (uy - fy) + (uz - fz) * (uz - fz));
        }
        return 2 * Math.sqrt(Math.min(max, maxFirst)) <= room;
    }

    /// Builds the list now; a cell-list build is split over `crew`'s threads when it is given
    /// (the same list: each part's atoms keep their pairs, the parts joined in order).
    public void build(AtomicSystem s, Crew crew) {
        main.clear();
        double rl = cutoff + skin;
        Cell cell = s.cell();
        double[] r = s.positions();
        int n = s.atoms();
        double[] frac = new double[3 * n];
        int[] lowImage = {Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE};
        int[] highImage = {Integer.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE};
        for (int i = 0; i < n; i++) {
            for (int d = 0; d < 3; d++) {
                double f = cell.fractional(d, r[3 * i], r[3 * i + 1], r[3 * i + 2]);
                frac[3 * i + d] = f;
                int img = (int) Math.floor(f);
                lowImage[d] = Math.min(lowImage[d], img);
                highImage[d] = Math.max(highImage[d], img);
            }
        }
        // a pair's translation: its atoms' distance in whole cells (unwrapped positions drift)
        // plus the images a cutoff sphere reaches
        imageRange = 1;
        for (int d = 0; d < 3; d++) {
            if (s.periodic(d) && n > 0) {
                long reach = (long) Math.ceil(rl / cell.faceDistance(d)) + 1 + ((long) highImage[d] - lowImage[d]);
                if (reach > MAX_IMAGE_RANGE) {
                    throw new IllegalStateException("system " + s.id() + ": atoms lie " + (highImage[d] - lowImage[d])
                            + " cells apart along axis " + d + " (cutoff reach " + (long) Math.ceil(rl / cell.faceDistance(d))
                            + " cells); wrap the positions into the cell, or use a larger cell");
                }
                imageRange = Math.max(imageRange, (int) reach);
            }
        }
        int side = 2 * imageRange + 1;
        imageShift = new double[3 * side * side * side];
        fillShifts(cell);
        if (start.length < s.atoms() + 1) {
            start = new int[s.atoms() + 1];
            end = new int[s.atoms() + 1];
        }
        // bins rl/2 wide searched ±2 bins deep (LAMMPS's default bin size: 125 bins of rl³/8
        // search 42% less volume than 27 bins of rl³) when every periodic axis holds five bins
        boolean cells = s.atoms() > 64;
        for (int d = 0; d < 3 && cells; d++) {
            cells = !s.periodic(d) || cell.faceDistance(d) >= 2.5 * rl;
        }
        if (cells) {
            buildCells(s, rl, 2, cell, frac, crew);
        } else {
            AllPairs.search(s, rl, main, start, end, this::codeOf);
        }
        builtAt = s.positions().clone();
        builtCell = cell;
        shiftCell = cell;
        shiftVersion++;
        builds++;
        generation++;
        sinceBuild = 0;
    }

    private void buildCells(AtomicSystem s, double rl, int k, Cell cell, double[] frac, Crew crew) {
        double[] r = s.positions();
        int n = s.atoms();
        // bin by fractional coordinate: a bin at least rl / (k · faceDistance) wide in s_d lies
        // within k bins of every point within rl of its points, so ±k bins suffice for any tilt
        double[] lo = new double[3];
        double[] len = new double[3];
        int[] nc = new int[3];
        for (int d = 0; d < 3; d++) {
            if (s.periodic(d)) {
                lo[d] = 0;
                len[d] = 1;
                nc[d] = Math.max(1, (int) Math.floor(cell.faceDistance(d) * k / rl));
            } else {
                double mn = Double.POSITIVE_INFINITY;
                double mx = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < n; i++) {
                    mn = Math.min(mn, frac[3 * i + d]);
                    mx = Math.max(mx, frac[3 * i + d]);
                }
                lo[d] = mn;
                len[d] = Math.max(mx - mn, 1e-9);
                nc[d] = Math.max(1, (int) Math.floor(len[d] * k / rl));
            }
        }
        int cellsTotal = nc[0] * nc[1] * nc[2];
        // Counting sort of the atoms by cell: each cell's atoms (and their wrapped coordinates)
        // lie contiguously, so scanning a neighbour cell streams memory instead of chasing a
        // linked list through random atoms (the list version spent ~3 µs per atom on misses).
        int[] cellOf = new int[3 * n];
        int[] image = new int[3 * n]; // how many boxes each atom sits away from the primary box
        int[] binOf = new int[n];
        int[] cellStart = new int[cellsTotal + 1];
        for (int i = 0; i < n; i++) {
            int c = 0;
            for (int d = 0; d < 3; d++) {
                double x = frac[3 * i + d] - lo[d];
                if (s.periodic(d)) {
                    int img = (int) Math.floor(x / len[d]);
                    image[3 * i + d] = img;
                    x -= img * len[d];
                }
                int b = Math.min(nc[d] - 1, Math.max(0, (int) (x / len[d] * nc[d])));
                cellOf[3 * i + d] = b;
                c = c * nc[d] + b;
            }
            binOf[i] = c;
            cellStart[c + 1]++;
        }
        for (int c = 0; c < cellsTotal; c++) {
            cellStart[c + 1] += cellStart[c];
        }
        int[] fill = Arrays.copyOf(cellStart, cellsTotal);
        int[] sorted = new int[n];
        double[] wx = new double[n];
        double[] wy = new double[n];
        double[] wz = new double[n];
        for (int i = 0; i < n; i++) {
            int q = fill[binOf[i]]++;
            sorted[q] = i;
            wx[q] = r[3 * i] - cell.translation(image[3 * i], image[3 * i + 1], image[3 * i + 2], 0);
            wy[q] = r[3 * i + 1] - cell.translation(image[3 * i], image[3 * i + 1], image[3 * i + 2], 1);
            wz[q] = r[3 * i + 2] - cell.translation(image[3 * i], image[3 * i + 1], image[3 * i + 2], 2);
        }
        Cells g = new Cells(s, rl * rl, cell, nc, cellOf, image, cellStart, sorted, wx, wy, wz, halfStencil(k));
        int threads = crew == null ? 1 : crew.size();
        if (threads <= 1 || n < 1024) {
            scan(g, 0, n, main);
            return;
        }
        if (parts.length != threads) {
            parts = new PairBuffer[threads];
            for (int t = 0; t < threads; t++) {
                parts[t] = new PairBuffer();
            }
        }
        PairBuffer[] buffers = parts;
        crew.run(threads, t -> {
            buffers[t].clear();
            scan(g, (int) ((long) n * t / threads), (int) ((long) n * (t + 1) / threads), buffers[t]);
        });
        // concatenate: each part's atoms keep their pairs contiguous, shifted by the part's base
        for (int t = 0; t < threads; t++) {
            int base = main.size;
            main.append(parts[t]);
            int from = (int) ((long) n * t / threads);
            int to = (int) ((long) n * (t + 1) / threads);
            for (int q = from; q < to; q++) {
                int i = sorted[q];
                start[i] += base;
                end[i] += base;
            }
        }
    }

    /// The binned atoms of one build.
    private record Cells(AtomicSystem s, double rl2, Cell cell, int[] nc, int[] cellOf, int[] image, int[] cellStart,
                         int[] sorted, double[] wx, double[] wy, double[] wz, int[] stencil) {
    }

    /// Half stencil: each atom meets the later atoms of its own bin and every atom of the
    /// "forward" neighbour bins (offsets lexicographically after (0, 0, 0)), so each pair is
    /// found once with no i < j test. Atoms `sorted[from … to)` are visited in bin order; the
    /// forward bins and their box shifts are worked out once per bin, not per atom. Their pairs
    /// go to `out`, contiguous per atom (start/end relative to `out`).
    private void scan(Cells g, int from, int to, PairBuffer out) {
        int[] hits = new int[64];
        int[] hitBin = new int[64];
        AtomicSystem s = g.s;
        int[] nc = g.nc;
        Cell cell = g.cell;
        boolean px = s.periodic(0);
        boolean py = s.periodic(1);
        boolean pz = s.periodic(2);
        int[] st = g.stencil;
        int m = st.length / 3;
        int[] nbFirst = new int[m];
        int[] nbLast = new int[m];
        int[] nbBox = new int[3 * m];
        double[] nbShift = new double[3 * m];
        int count = 0;
        int bin = -1;
        for (int qi = from; qi < to; qi++) {
            int i = g.sorted[qi];
            int ci = g.cellOf[3 * i];
            int cj = g.cellOf[3 * i + 1];
            int ck = g.cellOf[3 * i + 2];
            int own = (ci * nc[1] + cj) * nc[2] + ck;
            if (own != bin) { // the forward bins of this bin, once
                bin = own;
                count = 0;
                for (int o = 0; o < m; o++) {
                    int x = wrap(ci + st[3 * o], nc[0], px);
                    int y = wrap(cj + st[3 * o + 1], nc[1], py);
                    int z = wrap(ck + st[3 * o + 2], nc[2], pz);
                    if (x < 0 || y < 0 || z < 0) {
                        continue;
                    }
                    int cc = (x * nc[1] + y) * nc[2] + z;
                    if (g.cellStart[cc] == g.cellStart[cc + 1]) {
                        continue;
                    }
                    int kx = Math.floorDiv(ci + st[3 * o], nc[0]); // crossing the box edge: one box of shift
                    int ky = Math.floorDiv(cj + st[3 * o + 1], nc[1]);
                    int kz = Math.floorDiv(ck + st[3 * o + 2], nc[2]);
                    nbFirst[count] = g.cellStart[cc];
                    nbLast[count] = g.cellStart[cc + 1];
                    nbBox[3 * count] = kx;
                    nbBox[3 * count + 1] = ky;
                    nbBox[3 * count + 2] = kz;
                    nbShift[3 * count] = cell.translation(kx, ky, kz, 0);
                    nbShift[3 * count + 1] = cell.translation(kx, ky, kz, 1);
                    nbShift[3 * count + 2] = cell.translation(kx, ky, kz, 2);
                    count++;
                }
            }
            double xi = g.wx[qi];
            double yi = g.wy[qi];
            double zi = g.wz[qi];
            int ix0 = px ? g.image[3 * i] : 0;
            int iy0 = py ? g.image[3 * i + 1] : 0;
            int iz0 = pz ? g.image[3 * i + 2] : 0;
            start[i] = out.size;
            // the candidates inside the list radius, without a branch on the distance (a
            // candidate's slot is kept only if it is inside: ~1 in 6 are, unpredictably), then
            // their pairs in the same order
            int found = 0;
            int own1 = g.cellStart[own + 1];
            int candidates = own1 - qi - 1;
            for (int o = 0; o < count; o++) {
                candidates += nbLast[o] - nbFirst[o];
            }
            if (hits.length < candidates) {
                hits = new int[Math.max(candidates, 2 * hits.length)];
                hitBin = new int[hits.length];
            }
            int[] h = hits;
            int[] hb = hitBin;
            double rl2 = g.rl2;
            double[] wx = g.wx;
            double[] wy = g.wy;
            double[] wz = g.wz;
            for (int q = qi + 1; q < own1; q++) {
                double dx = wx[q] - xi;
                double dy = wy[q] - yi;
                double dz = wz[q] - zi;
                h[found] = q;
                hb[found] = -1;
                found += dx * dx + dy * dy + dz * dz < rl2 ? 1 : 0;
            }
            for (int o = 0; o < count; o++) {
                double ox = nbShift[3 * o] - xi;
                double oy = nbShift[3 * o + 1] - yi;
                double oz = nbShift[3 * o + 2] - zi;
                for (int q = nbFirst[o]; q < nbLast[o]; q++) {
                    double dx = wx[q] + ox;
                    double dy = wy[q] + oy;
                    double dz = wz[q] + oz;
                    h[found] = q;
                    hb[found] = o;
                    found += dx * dx + dy * dy + dz * dz < rl2 ? 1 : 0;
                }
            }
            for (int e = 0; e < found; e++) {
                int j = g.sorted[h[e]];
                int o = hb[e];
                if (o < 0) {
                    out.add(i, j, codeOf(px ? ix0 - g.image[3 * j] : 0, py ? iy0 - g.image[3 * j + 1] : 0, pz ? iz0 - g.image[3 * j + 2] : 0));
                } else {
                    // whole boxes between the stored positions of j and i along this separation
                    int ix = px ? nbBox[3 * o] + ix0 - g.image[3 * j] : 0;
                    int iy = py ? nbBox[3 * o + 1] + iy0 - g.image[3 * j + 1] : 0;
                    int iz = pz ? nbBox[3 * o + 2] + iz0 - g.image[3 * j + 2] : 0;
                    out.add(i, j, codeOf(ix, iy, iz));
                }
            }
            end[i] = out.size;
        }
    }

    /// The forward half of the ±k bin stencil (k = 2: 62 offsets), own bin excluded.
    private static int[] halfStencil(int k) {
        int[] out = new int[3 * (((2 * k + 1) * (2 * k + 1) * (2 * k + 1) - 1) / 2)];
        int n = 0;
        for (int a = 0; a <= k; a++) {
            for (int b = -k; b <= k; b++) {
                for (int c = -k; c <= k; c++) {
                    if (a > 0 || b > 0 || (b == 0 && c > 0)) {
                        out[n++] = a;
                        out[n++] = b;
                        out[n++] = c;
                    }
                }
            }
        }
        return out;
    }

    private static int wrap(int k, int n, boolean periodic) {
        if (k >= 0 && k < n) {
            return k;
        }
        return periodic ? Math.floorMod(k, n) : -1;
    }

    private short codeOf(int a, int b, int c) {
        int side = 2 * imageRange + 1;
        return (short) (((a + imageRange) * side + (b + imageRange)) * side + (c + imageRange));
    }

    /// Pairs in the list.
    public int pairCount() {
        return main.size;
    }

    /// First atoms of the pairs (live array, `pairCount()` valid entries).
    public int[] first() {
        return main.first;
    }

    /// Second atoms of the pairs.
    public int[] second() {
        return main.second;
    }

    /// Image shifts (Å, 3 per pair): r_j + shift − r_i is the pair's separation. A new array,
    /// expanded from the image codes (the list itself stores 2 bytes per pair, not 24).
    public double[] shifts() {
        double[] out = new double[3 * main.size];
        for (int p = 0; p < main.size; p++) {
            System.arraycopy(imageShift, 3 * main.code[p], out, 3 * p, 3);
        }
        return out;
    }

    /// Where each atom's pairs begin: atom i's pairs are `[start()[i], end()[i])`, each with `i`
    /// as its first atom (a pair is listed once, under one of its two atoms).
    public int[] start() {
        return start;
    }

    /// Where each atom's pairs end (exclusive).
    public int[] end() {
        return end;
    }

    /// Image code per pair, an index into `imageShifts()` (3 doubles per code).
    public short[] imageCodes() {
        return main.code;
    }

    /// The shift vector of every image code.
    public double[] imageShifts() {
        return imageShift;
    }

    /// The image code of no shift (the atom itself, not an image): most pairs of a large box have
    /// it, and a pair loop can skip the shift's loads and adds for them.
    public short unshiftedCode() {
        return codeOf(0, 0, 0);
    }

    /// The positions of the last build (what the rebuild rule measures displacements from), or
    /// null before the first: with `rebuildAt`, what a checkpoint keeps of the list.
    public double[] builtAt() {
        return builtAt.length == 0 ? null : builtAt.clone();
    }

    /// Rebuilds the list as its last build made it, from that build's positions `at` (saved by a
    /// checkpoint through `builtAt`) instead of the current ones: the same pairs in the same
    /// order, and the rebuild rule measuring from the same reference, so a restored system
    /// takes bit for bit the steps it would have taken uninterrupted. (A list built at the
    /// restored positions instead bins the atoms differently, orders its pairs differently, and
    /// the last-bit differences of the sums grow over a long run.) `builds` is set to `buildsThen`.
    public void rebuildAt(AtomicSystem s, double[] at, long buildsThen, Crew crew) {
        rebuildAt(s, at, null, buildsThen, crew);
    }

    /// As `rebuildAt`, the build made in the cell of lattice vectors `cellThen` (`builtCell`'s;
    /// null: the system's cell now), the shift table then the system's cell's.
    public void rebuildAt(AtomicSystem s, double[] at, double[] cellThen, long buildsThen, Crew crew) {
        double[] r = s.positions();
        if (at.length != r.length) {
            throw new IllegalArgumentException("system " + s.id() + ": saved list positions for " + at.length / 3 + " atoms, the system has "
                    + r.length / 3);
        }
        double[] now = r.clone();
        Cell cellNow = s.cell();
        System.arraycopy(at, 0, r, 0, r.length); // the build reads the system's positions: lend it the saved ones
        try {
            if (cellThen != null) {
                s.cell(Cell.of(cellThen, cellNow.pbc()));
            }
            build(s, crew);
        } finally {
            System.arraycopy(now, 0, r, 0, r.length);
            s.cell(cellNow);
        }
        reshift(cellNow);
        builds = buildsThen;
    }

    /// The lattice vectors of the last build's cell when the shift table has since been remade
    /// for another (a barostat's), else null: what a checkpoint keeps besides `builtAt`.
    public double[] builtCell() {
        return builtCell == null || sameVectors(builtCell, shiftCell) ? null : builtCell.vectors();
    }

    /// Changes with every build and every remaking of the shift table for a new cell: what a
    /// list that copies the shifts (`FullLists`) compares to know its copy is current.
    public long shiftVersion() {
        return shiftVersion;
    }

    /// Counts every build, including `rebuildAt`'s (which sets `builds()` back): what a list
    /// derived from this one compares to know it is current.
    long generation() {
        return generation;
    }

    /// The full list over ghost atoms derived from this list's last build (`FullList`; the
    /// derivation split over `crew`, null: the caller alone), its coordinates written from `r`
    /// (the system's `n` atoms' positions now).
    public FullList full(int n, double[] r, Crew crew) {
        if (full == null) {
            full = new FullList();
        }
        full.update(this, n, r, crew);
        return full;
    }

    /// Builds so far.
    public long builds() {
        return builds;
    }

    /// The interaction cutoff.
    public double cutoff() {
        return cutoff;
    }
}
