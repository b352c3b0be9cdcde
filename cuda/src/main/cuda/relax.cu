// Penstock's in-flight relaxation kernels: dev.penstock.atoms.device.CpuRelaxKernels on a GPU,
// statement for statement, over the packed columns of dev.penstock.atoms.device.RelaxColumns:
//
//   per atom    pos[3A] vel[3A] force[3A] mass[A] atomEnergy[A] atomSystem[A]
//   per system  ints[15 * cap]    (column c of system k at c * cap + k: START COUNT FRESH TAKEN
//                                  NSTEPS STARTED FLAG DONE ID_LO ID_HI SUB CELL_KIND IMAGES[3])
//               doubles[23 * cap] (ENERGY PREV_ENERGY FMAX DT ALPHA CELL[9] RECIPROCAL[9])
//
//   relax_list_check     one thread per system: whether the lists of its row are another's
//   relax_list_moved     one thread per atom: whether it moved half the skin since the build
//   relax_list_grid      one thread per system whose lists are stale: its bins, at least the
//                        list radius wide; relax_list_count, relax_list_prefix and
//                        relax_list_scatter sort its atoms into them (atomic counts and cursors)
//   relax_list_build     one thread per atom of a system whose lists are stale: its partners
//                        within the list radius (from the 27 bins around it), in row order
//                        (large free and nearest-image systems: RELAX_LIST_ATOMS atoms or more)
//   relax_forces         one thread per atom: its force and half its pair energies, a gather
//                        over the other atoms of its system (or its listed partners) in a fixed
//                        order (no atomics)
//   relax_reduce         one thread per system: energy, max |F_i|, flags, in atom order
//   relax_fire_step      one thread per system: FIRE (ASE-exact or mass-weighted) in atom order
//   relax_fire2_step     one thread per system: FIRE 2.0 in atom order
//   relax_nve_before     one thread per atom: velocity Verlet's half kick and drift
//   relax_nve_after      one thread per atom: its last half kick
//   relax_langevin       one thread per atom: B, A, O, A of Langevin BAOAB, its own noise draws
//   relax_check          one thread per system: step count, convergence, DONE
//   relax_gather_systems one thread per system of the destination (compaction, exits)
//   relax_gather_atoms   one thread per atom of the destination
//   relax_move_systems   one thread per system: its per-system columns to a packed row, or the
//                        packed row back (rows read back and written again: a fused stage's
//                        finished rows, the held rows for a hook, an admission's newcomers)
//
// Every sum runs in a fixed order that depends on the system alone, so a system's trajectory
// does not depend on its batch neighbours or the scheduling; built with -fmad=false
// (scripts/build-kernels.sh), the arithmetic is IEEE 754 operation for operation, as the JVM's.
//
// Built into PTX by scripts/build-kernels.sh, as encode.cu.
//
// Why one file over 400 lines: one PTX module (relax.ptx, loaded once per device by
// CudaRelaxKernels), whose kernels share the packed columns' layout, the pair terms, the cell's
// images and the lists' layout as inlined device functions, and must stay CpuRelaxKernels's
// loops statement for statement — the emulation test compiles this file as it is.

#include <cuda_runtime.h>

#define RELAX_START 0
#define RELAX_COUNT 1
#define RELAX_FRESH 2
#define RELAX_TAKEN 3
#define RELAX_NSTEPS 4
#define RELAX_STARTED 5
#define RELAX_FLAG 6
#define RELAX_DONE 7
#define RELAX_ID_LO 8
#define RELAX_ID_HI 9
#define RELAX_SUB 10
#define RELAX_CELL_KIND 11
#define RELAX_IMAGES_A 12
#define RELAX_INT_COLUMNS 15
#define RELAX_ENERGY 0
#define RELAX_PREV_ENERGY 1
#define RELAX_FMAX 2
#define RELAX_DT 3
#define RELAX_ALPHA 4
#define RELAX_CELL 5
#define RELAX_RECIPROCAL 14
// RelaxColumns.VIRIAL (23 … 31): relax_virial's (pairs), the CPU's model terms', the gather carries it
#define RELAX_DOUBLE_COLUMNS 79
// CellImages' kinds
#define RELAX_CELL_FREE 0
#define RELAX_CELL_NEAREST 1
#define RELAX_CELL_IMAGES 2
#define RELAX_FLAG_OVERLAP 1
#define RELAX_FLAG_NON_FINITE 2
#define RELAX_FLAG_RUNAWAY 3

// FIRE's ASE defaults, as dev.penstock.atoms.optimize.Fire
#define FIRE_MAXSTEP 0.2
#define FIRE_DTMAX 1.0
#define FIRE_NMIN 5
#define FIRE_FINC 1.1
#define FIRE_FDEC 0.5
#define FIRE_ASTART 0.1
#define FIRE_FA 0.99

#define RELAX_DBL_MAX 1.7976931348623157e308

// PortableMath.exp (atoms.device): IEEE additions, multiplications and an exact scaling only, so
// the GPU and the JVM compute the same bits (CUDA's exp and Java's Math.exp need not agree).
__device__ __forceinline__ double relax_exp(double x) {
    const double c[12] = {1.6059043836821613e-10, 2.08767569878681e-09, 2.505210838544172e-08, 2.755731922398589e-07,
                          2.7557319223985893e-06, 2.48015873015873e-05, 0.0001984126984126984, 0.001388888888888889,
                          0.008333333333333333, 0.041666666666666664, 0.16666666666666666, 0.5};
    if (x < -708.0) return 0.0;
    if (x > 709.0) return __longlong_as_double(0x7ff0000000000000LL);
    const double shifter = 6755399441055744.0;
    double t = x * 1.4426950408889634 + shifter;
    double k = t - shifter;
    double r = (x - k * 0.6931467056274414) - k * 4.7493250390316726e-07;
    double p = c[0];
    for (int i = 1; i < 12; i++) p = p * r + c[i];
    p = p * r + 1;
    p = p * r + 1;
    long long bits = __double_as_longlong(t) - __double_as_longlong(shifter);
    return p * __longlong_as_double((bits + 1023) << 52);
}

#define RELAX_PAIR_LJ 0
#define RELAX_PAIR_MORSE 1

// One pair's terms at separation (dx, dy, dz) = r_j − r_i, as CpuRelaxKernels' PairGather: the
// pair energy into *e, g·(r_j − r_i) into f; false (adding nothing) beyond the cutoff.
// Lennard-Jones (pa = 4ε, pb = σ²) or Morse (pa = D, pb = a, pc = r0).
__device__ __forceinline__ bool relax_term(double dx, double dy, double dz, int kind, double pa, double pb, double pc, double rc2,
                                           double shift, double od2, bool* overlap, double* e, double* f) {
    double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= rc2) return false;
    *overlap = *overlap || r2 < od2;
    double g;
    if (kind == RELAX_PAIR_MORSE) {
        double r = sqrt(r2);
        double ex = relax_exp(-pb * (r - pc));
        double q = 1 - ex;
        double twoDa = 2 * pa * pb;
        g = twoDa * q * ex / r;
        *e = pa * (q * q - 1) - shift;
    } else {
        double inv2 = 1 / r2;
        double s2 = pb * inv2;
        double s6 = s2 * s2 * s2;
        g = pa * (-12 * s6 * s6 + 6 * s6) * inv2;
        *e = pa * (s6 * s6 - s6) - shift;
    }
    f[0] = g * dx;
    f[1] = g * dy;
    f[2] = g * dz;
    return true;
}

// A system's cell as relax_forces reads it (CellImages): kind, lattice rows h[0..8],
// reciprocal rows h[9..17], the offsets scanned along a, b, c, and the nearest image's 1/L.
struct relax_cell {
    int kind;
    int images[3];
    double h[18];
    double inv[3];
    double reach[3];  // PairGather.reach: cutoff / face distance along a, b, c, with its margin
};

// Every image of partner j within the cutoff of the atom at (xi, yi, zi), its terms added into
// (*e, *fx, *fy, *fz) one after the other: the nearest image only, or (a scan) the offsets
// around the nearest one in fractional coordinates, ascending (`descending`: the other way, as a
// partner before the atom receives them from the CPU's half loop).
// The virial of one pair term at separation d = r_j − r_i (term force t on i): w −= d ⊗ t, kept as
// xx yy zz xy xz yz (d ⊗ t is symmetric: t is along d).
__device__ __forceinline__ void relax_pair_virial(double dx, double dy, double dz, const double* t, double* w) {
    w[0] -= dx * t[0];
    w[1] -= dy * t[1];
    w[2] -= dz * t[2];
    w[3] -= dx * t[1];
    w[4] -= dx * t[2];
    w[5] -= dy * t[2];
}

__device__ __forceinline__ void relax_pair(const double* pos, int j, double xi, double yi, double zi, const relax_cell* c,
                                           bool descending, int kind, double pa, double pb, double pc, double rc2, double shift,
                                           double od2, bool* overlap, double* e, double* fx, double* fy, double* fz, double* w) {
    const double shifter = 6755399441055744.0;
    const double* h = c->h;
    double dx0 = pos[3 * j] - xi;
    double dy0 = pos[3 * j + 1] - yi;
    double dz0 = pos[3 * j + 2] - zi;
    double t[3], u;
    if (c->kind != RELAX_CELL_IMAGES) {
        if (c->kind == RELAX_CELL_NEAREST) {
            dx0 = dx0 - h[0] * ((dx0 * c->inv[0] + shifter) - shifter);
            dy0 = dy0 - h[4] * ((dy0 * c->inv[1] + shifter) - shifter);
            dz0 = dz0 - h[8] * ((dz0 * c->inv[2] + shifter) - shifter);
        }
        if (!relax_term(dx0, dy0, dz0, kind, pa, pb, pc, rc2, shift, od2, overlap, &u, t)) return;
        *e += u;
        *fx += t[0];
        *fy += t[1];
        *fz += t[2];
        relax_pair_virial(dx0, dy0, dz0, t, w);
        return;
    }
    double sa = dx0 * h[9] + dy0 * h[10] + dz0 * h[11];
    double sb = dx0 * h[12] + dy0 * h[13] + dz0 * h[14];
    double sc = dx0 * h[15] + dy0 * h[16] + dz0 * h[17];
    double ba = -((sa + shifter) - shifter), bb = -((sb + shifter) - shifter), bc = -((sc + shifter) - shifter);
    double da = sa + ba, db = sb + bb, dc = sc + bc;
    int ia = c->images[0], ib = c->images[1], ic = c->images[2];
    int step = descending ? -1 : 1;
    // an offset whose |δ + o| reaches c->reach lies beyond the cutoff (its terms add nothing): skipped
    for (int oa = descending ? ia : -ia; oa >= -ia && oa <= ia; oa += step) {
        if (!(fabs(da + oa) < c->reach[0])) continue;
        for (int ob = descending ? ib : -ib; ob >= -ib && ob <= ib; ob += step) {
            if (!(fabs(db + ob) < c->reach[1])) continue;
            for (int oc = descending ? ic : -ic; oc >= -ic && oc <= ic; oc += step) {
                if (!(fabs(dc + oc) < c->reach[2])) continue;
                double na = ba + oa, nb = bb + ob, nc = bc + oc;
                double dx = dx0 + ((na * h[0] + nb * h[3]) + nc * h[6]);
                double dy = dy0 + ((na * h[1] + nb * h[4]) + nc * h[7]);
                double dz = dz0 + ((na * h[2] + nb * h[5]) + nc * h[8]);
                if (!relax_term(dx, dy, dz, kind, pa, pb, pc, rc2, shift, od2, overlap, &u, t)) continue;
                *e += u;
                *fx += t[0];
                *fy += t[1];
                *fz += t[2];
                relax_pair_virial(dx, dy, dz, t, w);
            }
        }
    }
}

// System k's cell as relax_pair reads it, `reach` for the cutoff rc2.
__device__ __forceinline__ void relax_load_cell(const int* ints, int cap, const double* doubles, int k, double rc2, relax_cell* cell) {
    cell->kind = ints[RELAX_CELL_KIND * cap + k];
    for (int d = 0; d < 3; d++) cell->images[d] = ints[(RELAX_IMAGES_A + d) * cap + k];
    for (int q = 0; q < 9; q++) {
        cell->h[q] = doubles[(RELAX_CELL + q) * cap + k];
        cell->h[9 + q] = doubles[(RELAX_RECIPROCAL + q) * cap + k];
    }
    for (int d = 0; d < 3; d++) {
        const double* row = cell->h + 9 + 3 * d;
        cell->inv[d] = cell->h[4 * d] == 0 ? 0 : 1 / cell->h[4 * d];
        double norm2 = row[0] * row[0] + row[1] * row[1] + row[2] * row[2];  // 0 on a free axis: it reaches everywhere
        cell->reach[d] = norm2 == 0 ? __longlong_as_double(0x7ff0000000000000LL) : sqrt(rc2) * sqrt(norm2) * (1 + 1e-9);
    }
}

// Verlet lists (CpuRelaxKernels' PairList on the GPU): a free or nearest-image system of
// RELAX_LIST_ATOMS atoms or more sums each atom's terms over its listed partners — every other atom
// of its system within the list radius at the last build, in row order — instead of all of them.
// A partner left out lies beyond the cutoff until some atom has moved half the skin (under a
// changing cell: relax_list_check's rule), and there the gather adds nothing for it, so the sums
// are the all-pairs sums bit for bit. Per system row
// four ints say for which system (valid, id lo, id hi, start) the row's atoms were listed: a row
// that holds another system, or the same one moved by a compaction, is listed again.
#define RELAX_LIST_ATOMS 1024
#define RELAX_LIST_MAX 256  // partners an atom's list holds; past it the atom sums all pairs

__device__ __forceinline__ bool relax_listed(const int* ints, int cap, int k) {
    return ints[RELAX_CELL_KIND * cap + k] != RELAX_CELL_IMAGES && ints[RELAX_COUNT * cap + k] >= RELAX_LIST_ATOMS;
}

// A row's lists go stale when it holds another system, or the same one moved by a compaction;
// otherwise a nearest-image cell changed since the build (a barostat's, a cell relaxation's)
// keeps them while no pair can have come inside the cutoff unlisted (NeighborList.update's rule,
// the cell orthorhombic here: M = diag(L / L_built)). Each atom is measured from where the
// deformation alone took it, u_i = r_i − M·r_built, and a pair closer than the cutoff now was
// within rl at the build while 2·max|u − c| ≤ room = skin − ‖M − I‖_F·rl for some c the same for
// every atom (d = M·d_built + u_j − u_i, |M·d_built| ≥ (1 − ‖M − I‖)·|d_built|): c = 0, or
// c = u of the system's first atom, which takes out a dilation about any fixed point.
// limit[8k …]: M's diagonal, (room/2)², that first atom's u. An unchanged cell gives M = I and
// the half skin, the rule of a fixed cell. relax_list_moved flags each choice of c an atom breaks
// (moved[2k], moved[2k + 1]); relax_list_grid makes the lists stale where both are broken.
extern "C" __global__ void relax_list_check(int systems, const int* ints, int cap, const double* doubles, const double* pos,
                                            const double* refPos, int* listKey, int* listStale, int* moved, const double* listCell,
                                            double* limit, double skin, double rl) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    int* key = listKey + 4 * k;
    if (!relax_listed(ints, cap, k)) {
        key[0] = 0;
        listStale[k] = 0;
        return;
    }
    int lo = ints[RELAX_ID_LO * cap + k], hi = ints[RELAX_ID_HI * cap + k], start = ints[RELAX_START * cap + k];
    int stale = key[0] == 1 && key[1] == lo && key[2] == hi && key[3] == start ? 0 : 1;
    key[0] = 1;
    key[1] = lo;
    key[2] = hi;
    key[3] = start;
    moved[2 * k] = 0;
    moved[2 * k + 1] = 0;
    if (stale) {
        listStale[k] = 1;
        return;
    }
    double* m = limit + 8 * k;
    double strain = 0;
    for (int d = 0; d < 3; d++) {
        double now = doubles[(RELAX_CELL + 4 * d) * cap + k], then = listCell[3 * k + d];
        m[d] = then == now ? 1 : now / then;  // a free axis: 0 then and now
        strain += (m[d] - 1) * (m[d] - 1);
        m[4 + d] = pos[3L * start + d] - m[d] * refPos[3L * start + d];
    }
    double room = skin - sqrt(strain) * rl;
    m[3] = 0.25 * room * room;
    listStale[k] = room > 0 ? 0 : 1;
}

// Atom i measured against its system's limit (relax_list_check): moved[2k] set if |u| breaks it,
// moved[2k + 1] if |u − u_first| does (a non-finite position breaks both); every writer writes 1.
extern "C" __global__ void relax_list_moved(int atoms, const int* atomSystem, const int* ints, int cap, const double* pos,
                                            const double* refPos, const int* listStale, int* moved, const double* limit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= atoms) return;
    int k = atomSystem[i];
    if (!relax_listed(ints, cap, k) || listStale[k] != 0) return;
    const double* m = limit + 8 * k;
    double dx = pos[3 * i] - m[0] * refPos[3 * i], dy = pos[3 * i + 1] - m[1] * refPos[3 * i + 1], dz = pos[3 * i + 2] - m[2] * refPos[3 * i + 2];
    if (!(dx * dx + dy * dy + dz * dz <= m[3])) moved[2 * k] = 1;
    dx -= m[4];
    dy -= m[5];
    dz -= m[6];
    if (!(dx * dx + dy * dy + dz * dz <= m[3])) moved[2 * k + 1] = 1;
}

// The bins a stale listed system's atoms are sorted into for its build: per axis nb bins at
// least rl wide — along a periodic axis of the nearest-image cell nb = ⌊L / rl⌋ (at least 3, so
// that the bins either side of one are two others), along a free one over the atoms' extent — at
// most as many bins as atoms. The grid per system row: grid[6k …] origin and width per axis,
// gridInts[4k …] nb per axis and whether the system is binned (0: a periodic axis too short,
// bins too many, or a position not finite — its atoms then scan all others, the same list).
// binStart[start + k …] (nb³ + 1 entries, within the system's own stretch) and binAtoms[start …]
// hold the sort; binFill is binStart's twin, the scatter's cursors. Four launches, parallel but
// for the grid and the prefix sums (one thread per system): relax_list_grid, relax_list_count
// (one thread per atom, atomic counts), relax_list_prefix, relax_list_scatter (one thread per
// atom, atomic cursors). The order of atoms within a bin is the scheduler's, so relax_list_build
// sorts each list into row order: the lists, and every sum over them, do not depend on it.
__device__ __forceinline__ int relax_bin_of(const double* pos, int i, const double* g, const int* gi, const bool* periodic) {
    int idx[3];
    for (int d = 0; d < 3; d++) {
        double f = (pos[3 * i + d] - g[d]) / g[3 + d];
        int b;
        if (periodic[d]) {
            double w = f / gi[d];
            w = w - floor(w);  // the fraction of the box, in [0, 1)
            b = (int) (w * gi[d]);
            if (b >= gi[d]) b = gi[d] - 1;
        } else {
            b = (int) floor(f);
            if (b < 0) b = 0;
            if (b >= gi[d]) b = gi[d] - 1;
        }
        idx[d] = b;
    }
    return (idx[2] * gi[1] + idx[1]) * gi[0] + idx[0];
}

// The grid of a stale listed system (see above; an atom's move makes it stale here), its bin counts
// cleared, the cell of the build kept. The extent along a free
// axis is one pass over its atoms on this thread.
extern "C" __global__ void relax_list_grid(int systems, const int* ints, int cap, const double* doubles, const double* pos,
                                           int* listStale, const int* moved, double rl, double* grid, int* gridInts, int* binStart,
                                           double* listCell) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    if (!relax_listed(ints, cap, k)) return;
    if (moved[2 * k] != 0 && moved[2 * k + 1] != 0) listStale[k] = 1;
    if (listStale[k] == 0) return;
    for (int d = 0; d < 3; d++) listCell[3 * k + d] = doubles[(RELAX_CELL + 4 * d) * cap + k];  // the build's cell
    double* g = grid + 6 * k;
    int* gi = gridInts + 4 * k;
    gi[3] = 0;
    int start = ints[RELAX_START * cap + k];
    int n = ints[RELAX_COUNT * cap + k];
    int kind = ints[RELAX_CELL_KIND * cap + k];
    long long bins = 1;
    for (int d = 0; d < 3; d++) {
        double L = doubles[(RELAX_CELL + 4 * d) * cap + k];
        if (kind == RELAX_CELL_NEAREST && L != 0) {
            int nb = (int) floor(L / rl);
            if (!(nb >= 3)) return;
            g[d] = 0;
            g[3 + d] = L / nb;
            gi[d] = nb;
        } else {
            double lo = pos[3 * start + d], hi = lo;
            for (int i = start; i < start + n; i++) {
                double x = pos[3 * i + d];
                if (!(x - x == 0)) return;  // not finite
                lo = fmin(lo, x);
                hi = fmax(hi, x);
            }
            double extent = hi - lo;
            int nb = extent >= rl ? (int) floor(extent / rl) : 1;
            g[d] = lo;
            g[3 + d] = nb > 1 ? extent / nb : (extent > 0 ? extent : 1);
            gi[d] = nb;
        }
        bins *= gi[d];
    }
    if (bins > n) return;
    int* bs = binStart + start + k;
    for (int b = 0; b <= (int) bins; b++) bs[b] = 0;
    gi[3] = 1;
}

__device__ __forceinline__ bool relax_binning(const int* ints, int cap, int k, const int* listStale, const int* gridInts) {
    return relax_listed(ints, cap, k) && listStale[k] != 0 && gridInts[4 * k + 3] == 1;
}

__device__ __forceinline__ void relax_periodic(const int* ints, int cap, const double* doubles, int k, bool* periodic) {
    int kind = ints[RELAX_CELL_KIND * cap + k];
    for (int d = 0; d < 3; d++) periodic[d] = kind == RELAX_CELL_NEAREST && doubles[(RELAX_CELL + 4 * d) * cap + k] != 0;
}

// Atom i's bin counted (a position not finite: its system is not binned after all).
extern "C" __global__ void relax_list_count(int atoms, const int* atomSystem, const int* ints, int cap, const double* doubles,
                                            const double* pos, const int* listStale, const double* grid, int* gridInts, int* binStart) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= atoms) return;
    int k = atomSystem[i];
    if (!relax_binning(ints, cap, k, listStale, gridInts)) return;
    double x = pos[3 * i], y = pos[3 * i + 1], z = pos[3 * i + 2];
    if (!(x - x == 0 && y - y == 0 && z - z == 0)) {
        gridInts[4 * k + 3] = 0;  // every writer writes 0
        return;
    }
    bool periodic[3];
    relax_periodic(ints, cap, doubles, k, periodic);
    atomicAdd(binStart + ints[RELAX_START * cap + k] + k + relax_bin_of(pos, i, grid + 6 * k, gridInts + 4 * k, periodic) + 1, 1);
}

// A binned system's counts summed into where each bin starts, copied into the scatter's cursors.
extern "C" __global__ void relax_list_prefix(int systems, const int* ints, int cap, const int* listStale, const int* gridInts, int* binStart,
                                             int* binFill) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    if (!relax_binning(ints, cap, k, listStale, gridInts)) return;
    const int* gi = gridInts + 4 * k;
    int bins = gi[0] * gi[1] * gi[2];
    int base = ints[RELAX_START * cap + k] + k;
    int* bs = binStart + base;
    int* fill = binFill + base;
    fill[0] = 0;
    for (int b = 0; b < bins; b++) {
        bs[b + 1] += bs[b];
        fill[b + 1] = bs[b + 1];
    }
}

// Atom i's row into its bin (at the bin's next free place).
extern "C" __global__ void relax_list_scatter(int atoms, const int* atomSystem, const int* ints, int cap, const double* doubles,
                                              const double* pos, const int* listStale, const double* grid, const int* gridInts, int* binFill,
                                              int* binAtoms) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= atoms) return;
    int k = atomSystem[i];
    if (!relax_binning(ints, cap, k, listStale, gridInts)) return;
    bool periodic[3];
    relax_periodic(ints, cap, doubles, k, periodic);
    int start = ints[RELAX_START * cap + k];
    int q = atomicAdd(binFill + start + k + relax_bin_of(pos, i, grid + 6 * k, gridInts + 4 * k, periodic), 1);
    binAtoms[start + q] = i;
}

// Partner j of atom i (at xi, yi, zi) into its list `out` (c so far; counted past the room)
// when its nearest image's squared distance is below rl2 or not a number; returns the new count.
__device__ __forceinline__ int relax_list_try(const double* pos, int j, int i, double xi, double yi, double zi, const relax_cell* cell,
                                              double rl2, int* out, int c) {
    if (j == i) return c;
    const double shifter = 6755399441055744.0;
    const double* h = cell->h;
    double dx = pos[3 * j] - xi, dy = pos[3 * j + 1] - yi, dz = pos[3 * j + 2] - zi;
    if (cell->kind == RELAX_CELL_NEAREST) {
        dx = dx - h[0] * ((dx * cell->inv[0] + shifter) - shifter);
        dy = dy - h[4] * ((dy * cell->inv[1] + shifter) - shifter);
        dz = dz - h[8] * ((dz * cell->inv[2] + shifter) - shifter);
    }
    if (!(dx * dx + dy * dy + dz * dz >= rl2)) {
        if (c < RELAX_LIST_MAX) out[c] = j;
        c++;
    }
    return c;
}

// Atom i's list, if its system's lists are stale: the other atoms of its system whose (nearest
// image's) squared distance is below rl2 — or not a number, which the gather then meets as the
// all-pairs sum does — in row order; more than RELAX_LIST_MAX: -1, the atom sums all pairs. A
// binned system's atoms look in their bin and the 26 around it (wrapped along periodic axes),
// then sort what they found into row order: the same list as the scan of all others, whatever
// order the scatter left each bin in.
extern "C" __global__ void relax_list_build(int atoms, const int* atomSystem, const int* ints, int cap, const double* doubles,
                                            const double* pos, const int* listStale, double rl2, double* refPos, int* listCount,
                                            int* list, const double* grid, const int* gridInts, const int* binStart, const int* binAtoms) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= atoms) return;
    int k = atomSystem[i];
    if (!relax_listed(ints, cap, k) || listStale[k] == 0) return;
    relax_cell cell;
    relax_load_cell(ints, cap, doubles, k, rl2, &cell);
    int start = ints[RELAX_START * cap + k];
    int n = ints[RELAX_COUNT * cap + k];
    double xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
    int* out = list + (long long) i * RELAX_LIST_MAX;
    int c = 0;
    const int* gi = gridInts + 4 * k;
    if (gi[3] == 1) {
        const double* g = grid + 6 * k;
        bool periodic[3];
        relax_periodic(ints, cap, doubles, k, periodic);
        int own = relax_bin_of(pos, i, g, gi, periodic);
        int b0[3] = {own % gi[0], (own / gi[0]) % gi[1], own / (gi[0] * gi[1])};
        const int* bs = binStart + start + k;
        for (int oz = -1; oz <= 1; oz++) {
            int bz = b0[2] + oz;
            if (periodic[2]) bz = (bz + gi[2]) % gi[2];
            else if (bz < 0 || bz >= gi[2]) continue;
            for (int oy = -1; oy <= 1; oy++) {
                int by = b0[1] + oy;
                if (periodic[1]) by = (by + gi[1]) % gi[1];
                else if (by < 0 || by >= gi[1]) continue;
                for (int ox = -1; ox <= 1; ox++) {
                    int bx = b0[0] + ox;
                    if (periodic[0]) bx = (bx + gi[0]) % gi[0];
                    else if (bx < 0 || bx >= gi[0]) continue;
                    int b = (bz * gi[1] + by) * gi[0] + bx;
                    for (int q = bs[b]; q < bs[b + 1]; q++) {
                        c = relax_list_try(pos, binAtoms[start + q], i, xi, yi, zi, &cell, rl2, out, c);
                    }
                }
            }
        }
        if (c <= RELAX_LIST_MAX) {  // into row order: the scan's order
            for (int p = 1; p < c; p++) {
                int j = out[p], q = p;
                for (; q > 0 && out[q - 1] > j; q--) out[q] = out[q - 1];
                out[q] = j;
            }
        }
    } else {
        for (int j = start; j < start + n; j++) {
            c = relax_list_try(pos, j, i, xi, yi, zi, &cell, rl2, out, c);
        }
    }
    listCount[i] = c <= RELAX_LIST_MAX ? c : -1;
    refPos[3 * i] = xi;
    refPos[3 * i + 1] = yi;
    refPos[3 * i + 2] = zi;
}

// Partner p of atom i: the p-th listed one, or (no list) the p-th other atom of its system.
__device__ __forceinline__ int relax_partner(const int* partners, int start, int i, int p) {
    return partners != nullptr ? partners[p] : start + p < i ? start + p : start + p + 1;
}

// The order of an atom's sum (RelaxKernels.STRIPE, PairGather): its energy with its own images
// first (a scan only); its partners before it in row order; then, of its m partners after it,
// the first RELAX_STRIPE·⌊m/RELAX_STRIPE⌋ into RELAX_STRIPE partial sums (partner i + 1 + q into
// sum q mod RELAX_STRIPE, each from −0.0), folded in in order; then the last m mod RELAX_STRIPE
// in row order. The CPU's half loop makes the same additions in the same order with its vector lanes.
#define RELAX_STRIPE 8

extern "C" __global__ void relax_forces(int atoms, const int* atomSystem, int* ints, int cap, const double* doubles, const double* pos,
                                        int kind, double pa, double pb, double pc, double rc2, double shift, double od2, double* force,
                                        double* atomEnergy, const int* listCount, const int* list, double* atomVirial) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= atoms) return;
    int k = atomSystem[i];
    relax_cell cell;
    relax_load_cell(ints, cap, doubles, k, rc2, &cell);
    int start = ints[RELAX_START * cap + k];
    int n = ints[RELAX_COUNT * cap + k];
    double xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
    double fx = 0, fy = 0, fz = 0, e = 0;
    double w[6] = {0, 0, 0, 0, 0, 0};  // the atom's pair virial, each pair whole (halved below, as the energy)
    bool overlap = false;
    if (cell.kind == RELAX_CELL_IMAGES) {  // the atom's own images: the positive offsets, ascending, each ± pair once
        double own = -0.0, t[3], u;
        const double* h = cell.h;
        for (int oa = -cell.images[0]; oa <= cell.images[0]; oa++) {
            for (int ob = -cell.images[1]; ob <= cell.images[1]; ob++) {
                for (int oc = -cell.images[2]; oc <= cell.images[2]; oc++) {
                    if (!(oa > 0 || (oa == 0 && (ob > 0 || (ob == 0 && oc > 0))))) continue;
                    double dx = (oa * h[0] + ob * h[3]) + oc * h[6];
                    double dy = (oa * h[1] + ob * h[4]) + oc * h[7];
                    double dz = (oa * h[2] + ob * h[5]) + oc * h[8];
                    if (relax_term(dx, dy, dz, kind, pa, pb, pc, rc2, shift, od2, &overlap, &u, t)) {
                        own += u;
                        relax_pair_virial(dx, dy, dz, t, w);  // the − image's d ⊗ t is the same: counted twice
                        relax_pair_virial(dx, dy, dz, t, w);
                    }
                }
            }
        }
        e += own + own;
    }
    int m = start + n - 1 - i;
    int striped = i + 1 + m - m % RELAX_STRIPE;
    // the partners: the listed ones, or every other atom of the system, in row order either way
    int listed = relax_listed(ints, cap, k) ? listCount[i] : -1;
    const int* partners = listed >= 0 ? list + (long long) i * RELAX_LIST_MAX : nullptr;
    int count = listed >= 0 ? listed : n - 1;
    int p = 0;
    for (; p < count && relax_partner(partners, start, i, p) < i; p++) {
        relax_pair(pos, relax_partner(partners, start, i, p), xi, yi, zi, &cell, true, kind, pa, pb, pc, rc2, shift, od2, &overlap, &e, &fx,
                   &fy, &fz, w);
    }
    if (striped > i + 1) {
        double px[RELAX_STRIPE], py[RELAX_STRIPE], pz[RELAX_STRIPE], pu[RELAX_STRIPE];
        for (int q = 0; q < RELAX_STRIPE; q++) px[q] = py[q] = pz[q] = pu[q] = -0.0;
        for (int j; p < count && (j = relax_partner(partners, start, i, p)) < striped; p++) {
            int q = (j - i - 1) % RELAX_STRIPE;
            relax_pair(pos, j, xi, yi, zi, &cell, false, kind, pa, pb, pc, rc2, shift, od2, &overlap, &pu[q], &px[q], &py[q], &pz[q], w);
        }
        for (int q = 0; q < RELAX_STRIPE; q++) {
            e += pu[q];
            fx += px[q];
            fy += py[q];
            fz += pz[q];
        }
    }
    for (; p < count; p++) {
        relax_pair(pos, relax_partner(partners, start, i, p), xi, yi, zi, &cell, false, kind, pa, pb, pc, rc2, shift, od2, &overlap, &e, &fx,
                   &fy, &fz, w);
    }
    force[3 * i] = fx;
    force[3 * i + 1] = fy;
    force[3 * i + 2] = fz;
    atomEnergy[i] = 0.5 * e;
    for (int c = 0; c < 6; c++) atomVirial[6 * i + c] = 0.5 * w[c];
    // every writer writes the same value; a flag the step before set stands (the step ran before this kernel)
    if (overlap && ints[RELAX_FLAG * cap + k] == 0) ints[RELAX_FLAG * cap + k] = RELAX_FLAG_OVERLAP;
}

// Whether system k takes the step of sub-stage `sub`: in it, and neither fresh, flagged nor done
// (CpuRelaxKernels.moves).
__device__ __forceinline__ bool relax_moves(const int* ints, int cap, int k, int sub) {
    return ints[RELAX_SUB * cap + k] == sub && ints[RELAX_FRESH * cap + k] == 0 && ints[RELAX_FLAG * cap + k] == 0
           && ints[RELAX_DONE * cap + k] == 0;
}

// Whether system k takes a half of a two-half step in sub-stage `sub`: the first half (`before`)
// as relax_moves; the second the systems the first moved (neither fresh nor flagged: `done` is
// the check's, after), as CpuRelaxKernels' movedBefore.
__device__ __forceinline__ bool relax_half(const int* ints, int cap, int k, int sub, int before) {
    return before ? relax_moves(ints, cap, k, sub)
                  : ints[RELAX_SUB * cap + k] == sub && ints[RELAX_FRESH * cap + k] == 0 && ints[RELAX_FLAG * cap + k] == 0;
}

extern "C" __global__ void relax_reduce(int systems, int* ints, int cap, const double* force, const double* atomEnergy, double* doubles) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    int start = ints[RELAX_START * cap + k];
    int n = ints[RELAX_COUNT * cap + k];
    double e = 0, max = 0;
    bool finite = true;
    for (int i = start; i < start + n; i++) {
        e += atomEnergy[i];
        double fx = force[3 * i], fy = force[3 * i + 1], fz = force[3 * i + 2];
        double f2 = fx * fx + fy * fy + fz * fz;
        finite = finite && f2 <= RELAX_DBL_MAX;
        max = (max != max) ? max : ((f2 != f2 || f2 > max) ? f2 : max);  // Math.max: NaN wins
    }
    finite = finite && fabs(e) <= RELAX_DBL_MAX;
    doubles[RELAX_ENERGY * cap + k] = e;
    doubles[RELAX_FMAX * cap + k] = sqrt(max);
    if (ints[RELAX_FLAG * cap + k] == 0 && !finite) ints[RELAX_FLAG * cap + k] = RELAX_FLAG_NON_FINITE;
}

// RelaxColumns.VIRIAL: each system's virial, its atoms' halves (the pair kernels', eam.cu's)
// summed in atom order (the CPU's models give the same to rounding: each pair once).
#define RELAX_VIRIAL 23
extern "C" __global__ void relax_virial(int systems, const int* ints, int cap, const double* atomVirial, double* doubles) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    int start = ints[RELAX_START * cap + k];
    int n = ints[RELAX_COUNT * cap + k];
    double w[6] = {0, 0, 0, 0, 0, 0};
    for (int i = start; i < start + n; i++) {
        for (int c = 0; c < 6; c++) w[c] += atomVirial[6 * i + c];
    }
    const int at[9] = {0, 3, 4, 3, 1, 5, 4, 5, 2};  // xx xy xz yx yy yz zx zy zz from xx yy zz xy xz yz
    for (int x = 0; x < 9; x++) doubles[(RELAX_VIRIAL + x) * cap + k] = w[at[x]];
}

extern "C" __global__ void relax_fire_step(int systems, int* ints, int cap, double* doubles, double* pos, double* vel, const double* force,
                                           const double* mass, int massWeighted, double maxStep2, int sub) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    if (!relax_moves(ints, cap, k, sub)) return;
    long a = 3L * ints[RELAX_START * cap + k];
    long b = a + 3L * ints[RELAX_COUNT * cap + k];
    doubles[RELAX_PREV_ENERGY * cap + k] = doubles[RELAX_ENERGY * cap + k];
    double dt = doubles[RELAX_DT * cap + k];
    double alpha = doubles[RELAX_ALPHA * cap + k];
    int nsteps = ints[RELAX_NSTEPS * cap + k];
    if (ints[RELAX_STARTED * cap + k] == 0) {
        for (long i = a; i < b; i++) vel[i] = 0;
        ints[RELAX_STARTED * cap + k] = 1;
    } else {
        double vf = 0;
        for (long i = a; i < b; i++) vf += force[i] * vel[i];
        if (vf > 0) {
            double ff = 0, vv = 0;
            for (long i = a; i < b; i++) {
                ff += force[i] * force[i];
                vv += vel[i] * vel[i];
            }
            double nf = sqrt(ff), nv = sqrt(vv);
            for (long i = a; i < b; i++) vel[i] = (1.0 - alpha) * vel[i] + alpha * force[i] / nf * nv;
            if (nsteps > FIRE_NMIN) {
                double x = dt * FIRE_FINC;
                dt = (x != x || x < FIRE_DTMAX) ? x : FIRE_DTMAX;  // Math.min
                alpha *= FIRE_FA;
            }
            nsteps++;
        } else {
            for (long i = a; i < b; i++) vel[i] = 0;
            alpha = FIRE_ASTART;
            dt *= FIRE_FDEC;
            nsteps = 0;
        }
    }
    double drr = 0;
    for (long i = a; i < b; i++) {
        double v = vel[i] + (massWeighted ? dt * force[i] / mass[i / 3] : dt * force[i]);
        vel[i] = v;
        double dr = dt * v;
        drr += dr * dr;
    }
    double norm = sqrt(drr);
    bool runaway = false;
    for (long i = a; i < b; i += 3) {  // atom by atom: |r_new - r_old|^2 against maxStep2
        double d2 = 0;
        for (long d = i; d < i + 3; d++) {
            double dr = dt * vel[d];
            double old = pos[d];
            double now = old + (norm > FIRE_MAXSTEP ? FIRE_MAXSTEP * dr / norm : dr);
            pos[d] = now;
            double moved = now - old;
            d2 += moved * moved;
        }
        runaway = runaway || d2 > maxStep2;
    }
    if (runaway) ints[RELAX_FLAG * cap + k] = RELAX_FLAG_RUNAWAY;
    doubles[RELAX_DT * cap + k] = dt;
    doubles[RELAX_ALPHA * cap + k] = alpha;
    ints[RELAX_NSTEPS * cap + k] = nsteps;
}

// FIRE 2.0's constants, as dev.penstock.atoms.optimize.Fire2
#define FIRE2_DTMAX 1.0
#define FIRE2_DTMIN 0.002
#define FIRE2_NDELAY 20
#define FIRE2_FINC 1.1
#define FIRE2_FDEC 0.5
#define FIRE2_ASTART 0.25
#define FIRE2_FA 0.99
#define FIRE2_MAXSTEP 0.2

// One FIRE 2.0 step of system k in atom order, as Fire2.step: its state dt, α, the positive-power
// run (NSTEPS) and the steps taken (TAKEN), its last step per atom in `last`.
extern "C" __global__ void relax_fire2_step(int systems, int* ints, int cap, double* doubles, double* pos, double* vel, const double* force,
                                            double* last, const double* mass, double maxStep2, int sub) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    if (!relax_moves(ints, cap, k, sub)) return;
    long a0 = 3L * ints[RELAX_START * cap + k];
    long b = a0 + 3L * ints[RELAX_COUNT * cap + k];
    doubles[RELAX_PREV_ENERGY * cap + k] = doubles[RELAX_ENERGY * cap + k];
    double dt = doubles[RELAX_DT * cap + k];
    double a = doubles[RELAX_ALPHA * cap + k];
    int npos = ints[RELAX_NSTEPS * cap + k];
    int stepIndex = ints[RELAX_TAKEN * cap + k];
    if (stepIndex == 0) {
        for (long i = a0; i < b; i++) {
            vel[i] = 0;
            last[i] = 0;
        }
    }
    double p = 0;
    for (long i = a0; i < b; i++) p += force[i] * vel[i];
    if (p > 0) {
        npos++;
        if (npos > FIRE2_NDELAY) {
            double x = dt * FIRE2_FINC;
            dt = (x != x || x < FIRE2_DTMAX) ? x : FIRE2_DTMAX;  // Math.min
            a *= FIRE2_FA;
        }
    } else {
        npos = 0;
        if (stepIndex >= FIRE2_NDELAY) {
            double x = dt * FIRE2_FDEC;
            dt = (x != x || x > FIRE2_DTMIN) ? x : FIRE2_DTMIN;  // Math.max
            a = FIRE2_ASTART;
        }
        for (long i = a0; i < b; i++) {
            pos[i] -= 0.5 * last[i];
            vel[i] = 0;
        }
    }
    double ff = 0, vv = 0;
    for (long i = a0; i < b; i++) {
        vel[i] += dt * force[i] / mass[i / 3];
        ff += force[i] * force[i];
        vv += vel[i] * vel[i];
    }
    double nf = sqrt(ff), nv = sqrt(vv);
    double drr = 0;
    for (long i = a0; i < b; i++) {
        vel[i] = (1 - a) * vel[i] + (nf > 0 ? a * force[i] / nf * nv : 0);
        drr += dt * vel[i] * dt * vel[i];
    }
    double norm = sqrt(drr);
    double scale = norm > FIRE2_MAXSTEP ? FIRE2_MAXSTEP / norm : 1;
    bool runaway = false;
    for (long i = a0; i < b; i += 3) {
        for (long d = i; d < i + 3; d++) {
            last[d] = scale * dt * vel[d];
            pos[d] += last[d];
        }
        runaway = runaway || last[i] * last[i] + last[i + 1] * last[i + 1] + last[i + 2] * last[i + 2] > maxStep2;
    }
    if (runaway) ints[RELAX_FLAG * cap + k] = RELAX_FLAG_RUNAWAY;
    doubles[RELAX_DT * cap + k] = dt;
    doubles[RELAX_ALPHA * cap + k] = a;
    ints[RELAX_NSTEPS * cap + k] = npos;
}

// A half kick (and, before the forces, the drift) of atom i, as dev.penstock.atoms.integrate.VelocityVerlet.
extern "C" __global__ void relax_nve(int atoms, int before, const int* atomSystem, int* ints, int cap, const double* doubles,
                                     double* pos, double* vel, const double* force, const double* mass, double maxStep2, int sub) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= atoms) return;
    int k = atomSystem[i];
    if (ints[RELAX_SUB * cap + k] != sub) return;
    // no system is flagged when a step begins (flagged ones left at the end of the last), and the
    // flag this kernel sets must not stop the system's other atoms: only the second half asks
    if (ints[RELAX_FRESH * cap + k] != 0 || (before ? ints[RELAX_DONE * cap + k] != 0 : ints[RELAX_FLAG * cap + k] != 0)) return;
    double dt = doubles[RELAX_DT * cap + k];
    double kick = 0.5 * dt / mass[i];
    for (int d = 3 * i; d < 3 * i + 3; d++) vel[d] = vel[d] + kick * force[d];
    if (before) {
        double d2 = 0;
        for (int d = 3 * i; d < 3 * i + 3; d++) {
            double old = pos[d];
            double now = old + dt * vel[d];
            pos[d] = now;
            double moved = now - old;
            d2 += moved * moved;
        }
        if (d2 > maxStep2) ints[RELAX_FLAG * cap + k] = RELAX_FLAG_RUNAWAY;  // every writer writes the same value
    }
}

// RelaxColumns' Nosé-Hoover columns (NH_KE, NH_CONSERVED0, NH_ETA, NH_ETA_DOT, NH_ETA_DOTDOT: up
// to NoseHoover.MAX_CHAIN each) and RelaxColumns.ENERGY.
#define RELAX_NH_KE 32
#define RELAX_NH_CONSERVED0 33
#define RELAX_NH_ETA 34
#define RELAX_NH_MAX_CHAIN 5
#define RELAX_NH_ETA_DOT (RELAX_NH_ETA + RELAX_NH_MAX_CHAIN)
#define RELAX_NH_ETA_DOTDOT (RELAX_NH_ETA_DOT + RELAX_NH_MAX_CHAIN)

// NoseHoover.half: one half step of a system's chain over its atoms' velocities [start, start + n),
// whose Σ m v² is `ke`; returns Σ m v² after the scaling.
__device__ double relax_nh_half(double* vel, int start, int n, double* eta, double* etaDot, double* etaDotDot, int chain, int tloop,
                                double ke, double kT, double tfreq, double dt) {
    double qk = kT / (tfreq * tfreq);
    double dthalf = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
    double tdof = 3.0 * n - 3;
    double keTarget = tdof * kT;
    double q0 = tdof * kT / (tfreq * tfreq);
    etaDotDot[0] = q0 > 0 ? (ke - keTarget) / q0 : 0;
    double ncfac = 1.0 / tloop;
    for (int loop = 0; loop < tloop; loop++) {
        for (int q = chain - 1; q > 0; q--) {
            double expfac = relax_exp(-ncfac * dt8 * etaDot[q + 1]);
            etaDot[q] *= expfac;
            etaDot[q] += etaDotDot[q] * ncfac * dt4;
            etaDot[q] *= expfac;
        }
        double expfac = relax_exp(-ncfac * dt8 * etaDot[1]);
        etaDot[0] *= expfac;
        etaDot[0] += etaDotDot[0] * ncfac * dt4;
        etaDot[0] *= expfac;
        double factor = relax_exp(-ncfac * dthalf * etaDot[0]);
        for (int d = 3 * start; d < 3 * (start + n); d++) vel[d] *= factor;
        ke *= factor * factor;
        etaDotDot[0] = q0 > 0 ? (ke - keTarget) / q0 : 0;
        for (int q = 0; q < chain; q++) eta[q] += ncfac * dthalf * etaDot[q];
        etaDot[0] *= expfac;
        etaDot[0] += etaDotDot[0] * ncfac * dt4;
        etaDot[0] *= expfac;
        for (int q = 1; q < chain; q++) {
            expfac = relax_exp(-ncfac * dt8 * etaDot[q + 1]);
            etaDot[q] *= expfac;
            double below = q == 1 ? q0 : qk;
            etaDotDot[q] = (below * etaDot[q - 1] * etaDot[q - 1] - kT) / qk;
            etaDot[q] += etaDotDot[q] * ncfac * dt4;
            etaDot[q] *= expfac;
        }
    }
    return ke;
}

// Half a Nosé-Hoover chain step of each system in sub-stage `sub` (dev.penstock.atoms.integrate.
// NoseHoover.half, the same operations in the same order): one thread per system, over its atoms.
// `before` (ahead of relax_nve's first half; neither fresh, flagged nor done): a system's first
// step sets its chain at rest and its sum m v^2 from its velocities, and keeps E + sum m v^2 / 2;
// later steps take the sum the last half left. Otherwise (after relax_nve's second half; neither
// fresh nor flagged): the sum from the velocities now.
extern "C" __global__ void relax_nh_chain(int systems, int before, int* ints, int cap, double* doubles, double* vel, const double* mass,
                                          int chain, int tloop, double kT, double tfreq, int sub) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    if (!relax_half(ints, cap, k, sub, before)) return;
    int start = ints[RELAX_START * cap + k];
    int n = ints[RELAX_COUNT * cap + k];
    double eta[RELAX_NH_MAX_CHAIN], etaDot[RELAX_NH_MAX_CHAIN + 1], etaDotDot[RELAX_NH_MAX_CHAIN];
    double qk = kT / (tfreq * tfreq);
    double ke;
    bool first = before && ints[RELAX_TAKEN * cap + k] == 0;
    if (first) {
        for (int q = 0; q < chain; q++) eta[q] = etaDot[q] = etaDotDot[q] = 0;
        for (int q = 1; q < chain; q++) etaDotDot[q] = (0 - kT) / qk;
    } else {
        for (int q = 0; q < chain; q++) {
            eta[q] = doubles[(RELAX_NH_ETA + q) * cap + k];
            etaDot[q] = doubles[(RELAX_NH_ETA_DOT + q) * cap + k];
            etaDotDot[q] = doubles[(RELAX_NH_ETA_DOTDOT + q) * cap + k];
        }
    }
    etaDot[chain] = 0;
    if (before && !first) {
        ke = doubles[RELAX_NH_KE * cap + k];
    } else {
        ke = 0;
        for (int i = start; i < start + n; i++) {
            ke += mass[i] * (vel[3 * i] * vel[3 * i] + vel[3 * i + 1] * vel[3 * i + 1] + vel[3 * i + 2] * vel[3 * i + 2]);
        }
        if (first) doubles[RELAX_NH_CONSERVED0 * cap + k] = doubles[RELAX_ENERGY * cap + k] + 0.5 * ke;
    }
    double dt = doubles[RELAX_DT * cap + k];
    ke = relax_nh_half(vel, start, n, eta, etaDot, etaDotDot, chain, tloop, ke, kT, tfreq, dt);
    doubles[RELAX_NH_KE * cap + k] = ke;
    for (int q = 0; q < chain; q++) {
        doubles[(RELAX_NH_ETA + q) * cap + k] = eta[q];
        doubles[(RELAX_NH_ETA_DOT + q) * cap + k] = etaDot[q];
        doubles[(RELAX_NH_ETA_DOTDOT + q) * cap + k] = etaDotDot[q];
    }
}

// Seeds (core): the SplitMix64 finaliser and the sponge's last steps, for LangevinNoise's keys.
#define SEEDS_GOLDEN 0x9E3779B97F4A7C15ULL
#define SEEDS_START 0x5EED0F9E2A570CULL
__device__ __forceinline__ unsigned long long seeds_mix(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
__device__ __forceinline__ unsigned long long seeds_absorb(unsigned long long h, unsigned long long x) {
    return seeds_mix(h ^ x) + SEEDS_GOLDEN;
}

// LangevinNoise.log: m·2^e, m in [√½, √2), 2·atanh(f / (2 + f)) to the 21st power.
__device__ __forceinline__ double noise_log(double x) {
    long long bits = __double_as_longlong(x);
    int e = (int) ((bits >> 52) & 0x7ff) - 1023;
    double m = __longlong_as_double((bits & 0x000fffffffffffffLL) | 0x3ff0000000000000LL);
    if (m > 1.4142135623730951) {
        m *= 0.5;
        e++;
    }
    double f = m - 1;
    double s = f / (2 + f);
    double w = s * s;
    const double series[10] = {0.047619047619047616, 0.05263157894736842, 0.058823529411764705, 0.06666666666666667,
                               0.07692307692307693, 0.09090909090909091, 0.1111111111111111, 0.14285714285714285, 0.2,
                               0.3333333333333333};  // 1/21, 1/19, … 1/3
    double p = series[0];
    for (int k = 1; k < 10; k++) p = p * w + series[k];
    p = p * w + 1;
    return e * 0.6931467056274414 + (e * 4.7493250390316726e-07 + 2 * s * p);
}

// LangevinNoise's pair p: Marsaglia's polar method on pair p's own counter stream (draws 2p, 2p + 1).
__device__ __forceinline__ void noise_pair(unsigned long long key, long long p, double* out) {
    unsigned long long c = (unsigned long long) p << 24;
    while (true) {
        unsigned long long z1 = seeds_mix(key + (c + 1) * SEEDS_GOLDEN);
        c++;
        unsigned long long z2 = seeds_mix(key + (c + 1) * SEEDS_GOLDEN);
        c++;
        double v1 = (double) (z1 >> 11) * 1.1102230246251565e-16 * 2 - 1;
        double v2 = (double) (z2 >> 11) * 1.1102230246251565e-16 * 2 - 1;
        double s = v1 * v1 + v2 * v2;
        if (s < 1 && s != 0) {
            double f = sqrt(-2 * noise_log(s) / s);
            out[0] = v1 * f;
            out[1] = v2 * f;
            return;
        }
    }
}

// B, A, O, A of Langevin.baoab for atom i (its system in sub-stage `sub`, moving): the noise of
// draw 3·(i − start) + axis keyed by (seed, id, taken), from `prefix` = Seeds.absorbed(seed,
// "penstock.langevin", 2). Only the second half kick (relax_nve) asks the flag this one sets.
extern "C" __global__ void relax_langevin(int atoms, const int* atomSystem, int* ints, int cap, const double* doubles, double* pos,
                                          double* vel, const double* force, const double* mass, double kT, double c1, double c2,
                                          unsigned long long prefix, double maxStep2, int sub) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= atoms) return;
    int k = atomSystem[i];
    if (ints[RELAX_SUB * cap + k] != sub || ints[RELAX_FRESH * cap + k] != 0 || ints[RELAX_DONE * cap + k] != 0) return;
    int start = ints[RELAX_START * cap + k];
    unsigned long long id = ((unsigned long long) (unsigned int) ints[RELAX_ID_HI * cap + k] << 32)
                            | (unsigned long long) (unsigned int) ints[RELAX_ID_LO * cap + k];
    unsigned long long step = (unsigned long long) (long long) ints[RELAX_TAKEN * cap + k];
    unsigned long long key = seeds_mix(seeds_absorb(seeds_absorb(prefix, id), step) + SEEDS_START);
    double dt = doubles[RELAX_DT * cap + k];
    double kick = 0.5 * dt / mass[i];
    double half = 0.5 * dt;
    double old[3];
    for (int d = 0; d < 3; d++) {
        old[d] = pos[3 * i + d];
        vel[3 * i + d] = vel[3 * i + d] + kick * force[3 * i + d];
    }
    for (int d = 0; d < 3; d++) pos[3 * i + d] = pos[3 * i + d] + half * vel[3 * i + d];
    double sd = c2 * sqrt(kT / mass[i]);
    long long j0 = 3LL * (i - start);
    double two[2];
    long long made = -1;  // the pair in `two`
    for (int d = 0; d < 3; d++) {
        long long p = (j0 + d) >> 1;
        if (p != made) {
            noise_pair(key, p, two);
            made = p;
        }
        vel[3 * i + d] = c1 * vel[3 * i + d] + sd * two[(j0 + d) & 1];
    }
    double d2 = 0;
    for (int d = 0; d < 3; d++) {
        double now = pos[3 * i + d] + half * vel[3 * i + d];
        pos[3 * i + d] = now;
        double moved = now - old[d];
        d2 += moved * moved;
    }
    if (d2 > maxStep2) ints[RELAX_FLAG * cap + k] = RELAX_FLAG_RUNAWAY;  // every writer writes the same value
}

extern "C" __global__ void relax_check(int systems, int* ints, int cap, const double* doubles, double fmax, double etol, int budget,
                                       int sub) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems || ints[RELAX_SUB * cap + k] != sub) return;
    if (ints[RELAX_FLAG * cap + k] != 0) {
        ints[RELAX_DONE * cap + k] = 1;
        return;
    }
    int taken = ints[RELAX_TAKEN * cap + k];
    if (ints[RELAX_FRESH * cap + k] != 0) {
        ints[RELAX_FRESH * cap + k] = 0;
    } else {
        ints[RELAX_TAKEN * cap + k] = ++taken;
    }
    double e = doubles[RELAX_ENERGY * cap + k];
    bool converged = doubles[RELAX_FMAX * cap + k] < fmax && (etol == 0 || fabs(e - doubles[RELAX_PREV_ENERGY * cap + k]) < etol);
    ints[RELAX_DONE * cap + k] = converged || taken >= budget ? 1 : 0;
}

extern "C" __global__ void relax_gather_systems(int systems, const int* map, const int* srcInts, int srcCap, const double* srcDoubles,
                                                int* dstInts, int dstCap, double* dstDoubles, int* dstAtomSystem) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    int src = map[k];
    for (int c = 0; c < RELAX_INT_COLUMNS; c++) dstInts[c * dstCap + k] = srcInts[c * srcCap + src];
    for (int c = 0; c < RELAX_DOUBLE_COLUMNS; c++) dstDoubles[c * dstCap + k] = srcDoubles[c * srcCap + src];
    int start = map[systems + k];
    dstInts[RELAX_START * dstCap + k] = start;
    int n = srcInts[RELAX_COUNT * srcCap + src];
    for (int i = start; i < start + n; i++) dstAtomSystem[i] = k;
}

// The per-system columns (no atom column) of source row map[k] to destination row k (pick = 1:
// rows packed for a read-back), or of source row k to destination row map[k] (pick = 0: back).
extern "C" __global__ void relax_move_systems(int systems, const int* map, int pick, const int* srcInts, int srcCap,
                                              const double* srcDoubles, int* dstInts, int dstCap, double* dstDoubles) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    int src = pick ? map[k] : k;
    int dst = pick ? k : map[k];
    for (int c = 0; c < RELAX_INT_COLUMNS; c++) dstInts[c * dstCap + dst] = srcInts[c * srcCap + src];
    for (int c = 0; c < RELAX_DOUBLE_COLUMNS; c++) dstDoubles[c * dstCap + dst] = srcDoubles[c * srcCap + src];
}

extern "C" __global__ void relax_gather_atoms(int atoms, int systems, const int* map, const double* srcPos, const double* srcVel,
                                              const double* srcForce, const double* srcLast, const double* srcMass,
                                              const double* srcAtomEnergy, double* dstPos, double* dstVel, double* dstForce,
                                              double* dstLast, double* dstMass, double* dstAtomEnergy) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= atoms) return;
    long src = map[2L * systems + a];
    dstAtomEnergy[a] = srcAtomEnergy[src];
    dstMass[a] = srcMass[src];
    for (int d = 0; d < 3; d++) {
        dstPos[3L * a + d] = srcPos[3 * src + d];
        dstVel[3L * a + d] = srcVel[3 * src + d];
        dstForce[3L * a + d] = srcForce[3 * src + d];
        dstLast[3L * a + d] = srcLast[3 * src + d];
    }
}

// The MTK barostat (dev.penstock.atoms.integrate.Mtk, the same operations in the same order;
// RelaxColumns.BARO's state: ω̇[6], η_p[5], η̇_p[6], η̈_p[5], V₀, kT, lo[3], fixed[3]).
#define RELAX_BARO 49
#define RELAX_FLAG_NO_VIRIAL 5
#define MTK_OMEGA_DOT 0
#define MTK_ETAP 6
#define MTK_ETAP_DOT 11
#define MTK_ETAP_DOTDOT 17
#define MTK_VOL0 22
#define MTK_KT 23
#define MTK_LO 24
#define MTK_FIXED 27
#define MTK_STATE 30
#define MTK_ISO 0
#define MTK_TRI 2

// System k's cell and last virial into `cell`, `w` (9 each); a system without a virial is flagged
// RELAX_FLAG_NO_VIRIAL (false): what a barostat's or a cell relaxation's step reads first.
__device__ bool relax_cell_virial(int* ints, int cap, const double* doubles, int k, double* cell, double* w) {
    for (int x = 0; x < 9; x++) {
        w[x] = doubles[(RELAX_VIRIAL + x) * cap + k];
        cell[x] = doubles[(RELAX_CELL + x) * cap + k];
    }
    if (w[0] != w[0]) {
        ints[RELAX_FLAG * cap + k] = RELAX_FLAG_NO_VIRIAL;
        return false;
    }
    return true;
}

__device__ __forceinline__ bool mtk_on(int couple, int i) { return i < 3 || couple == MTK_TRI; }

__device__ double mtk_volume(const double* c) {
    if (c[1] == 0 && c[2] == 0 && c[5] == 0) return c[0] * c[4] * c[8];
    return fabs(c[0] * (c[4] * c[8] - c[5] * c[7]) - c[1] * (c[3] * c[8] - c[5] * c[6]) + c[2] * (c[3] * c[7] - c[4] * c[6]));
}

// Mtk.chain: the barostat chain's half step, scaling ω̇.
__device__ void mtk_chain(double* st, int atoms, int couple, double pfreq, int pchain, double dt) {
    if (pchain == 0) return;
    double kT = st[MTK_KT];
    double dthalf = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
    double wm = (atoms + 1) * kT / (pfreq * pfreq);
    double em = kT / (pfreq * pfreq);
    double ke = 0;
    int pdof = 0;
    for (int i = 0; i < 6; i++) {
        if (mtk_on(couple, i)) {
            ke += wm * st[MTK_OMEGA_DOT + i] * st[MTK_OMEGA_DOT + i];
            pdof++;
        }
    }
    double lkt = couple == MTK_ISO ? kT : pdof * kT;
    st[MTK_ETAP_DOTDOT] = (ke - lkt) / em;
    for (int k = pchain - 1; k > 0; k--) {
        double expfac = relax_exp(-dt8 * st[MTK_ETAP_DOT + k + 1]);
        st[MTK_ETAP_DOT + k] *= expfac;
        st[MTK_ETAP_DOT + k] += st[MTK_ETAP_DOTDOT + k] * dt4;
        st[MTK_ETAP_DOT + k] *= expfac;
    }
    double expfac = relax_exp(-dt8 * st[MTK_ETAP_DOT + 1]);
    st[MTK_ETAP_DOT] *= expfac;
    st[MTK_ETAP_DOT] += st[MTK_ETAP_DOTDOT] * dt4;
    st[MTK_ETAP_DOT] *= expfac;
    for (int k = 0; k < pchain; k++) st[MTK_ETAP + k] += dthalf * st[MTK_ETAP_DOT + k];
    double factor = relax_exp(-dthalf * st[MTK_ETAP_DOT]);
    for (int i = 0; i < 6; i++) if (mtk_on(couple, i)) st[MTK_OMEGA_DOT + i] *= factor;
    ke = 0;
    for (int i = 0; i < 6; i++) if (mtk_on(couple, i)) ke += wm * st[MTK_OMEGA_DOT + i] * st[MTK_OMEGA_DOT + i];
    st[MTK_ETAP_DOTDOT] = (ke - lkt) / em;
    st[MTK_ETAP_DOT] *= expfac;
    st[MTK_ETAP_DOT] += st[MTK_ETAP_DOTDOT] * dt4;
    st[MTK_ETAP_DOT] *= expfac;
    for (int k = 1; k < pchain; k++) {
        expfac = relax_exp(-dt8 * st[MTK_ETAP_DOT + k + 1]);
        st[MTK_ETAP_DOT + k] *= expfac;
        st[MTK_ETAP_DOTDOT + k] = (em * st[MTK_ETAP_DOT + k - 1] * st[MTK_ETAP_DOT + k - 1] - kT) / em;
        st[MTK_ETAP_DOT + k] += st[MTK_ETAP_DOTDOT + k] * dt4;
        st[MTK_ETAP_DOT + k] *= expfac;
    }
}

// Mtk.kineticTensor and Mtk.mv2 over atoms [start, start + n).
__device__ void mtk_kinetic(const double* vel, const double* mass, int start, int n, double* kin) {
    for (int c = 0; c < 6; c++) kin[c] = 0;
    for (int i = start; i < start + n; i++) {
        double vx = vel[3 * i], vy = vel[3 * i + 1], vz = vel[3 * i + 2], m = mass[i];
        kin[0] += m * vx * vx;
        kin[1] += m * vy * vy;
        kin[2] += m * vz * vz;
        kin[3] += m * vx * vy;
        kin[4] += m * vx * vz;
        kin[5] += m * vy * vz;
    }
}
__device__ double mtk_mv2(const double* vel, const double* mass, int start, int n) {
    double s = 0;
    for (int i = start; i < start + n; i++) {
        s += mass[i] * (vel[3 * i] * vel[3 * i] + vel[3 * i + 1] * vel[3 * i + 1] + vel[3 * i + 2] * vel[3 * i + 2]);
    }
    return s;
}

// Mtk.pressure then Mtk.omegaDot (ISO's MTK term from `term`: the carried Σmv² before, afresh after).
__device__ void mtk_omega(double* st, const double* kin, double mv2, double term, const double* w, double volume, int atoms, int couple,
                          double p, double pfreq, double dt) {
    double pcur[6] = {0, 0, 0, 0, 0, 0};
    if (couple == MTK_ISO) {
        double pp = (mv2 + w[0] + w[4] + w[8]) / 3.0 * (1 / volume);
        pcur[0] = pcur[1] = pcur[2] = pp;
    } else {
        double inv = 1 / volume;
        pcur[0] = (kin[0] + w[0]) * inv;
        pcur[1] = (kin[1] + w[4]) * inv;
        pcur[2] = (kin[2] + w[8]) * inv;
        if (couple == MTK_TRI) {
            pcur[3] = (kin[5] + w[5]) * inv;
            pcur[4] = (kin[4] + w[2]) * inv;
            pcur[5] = (kin[3] + w[1]) * inv;
        }
    }
    double dthalf = 0.5 * dt;
    double wm = (atoms + 1) * st[MTK_KT] / (pfreq * pfreq);
    double term1 = couple == MTK_ISO ? term : kin[0] + kin[1] + kin[2];
    term1 /= 3 * atoms;
    for (int i = 0; i < 3; i++) {
        double f = (pcur[i] - p) * volume / wm + term1 / wm;
        st[MTK_OMEGA_DOT + i] += f * dthalf;
    }
    if (couple == MTK_TRI) {
        for (int i = 3; i < 6; i++) {
            double f = pcur[i] * volume / wm;
            st[MTK_OMEGA_DOT + i] += f * dthalf;
        }
    }
}

// Mtk.scaleVelocities for atom i.
__device__ __forceinline__ void mtk_scale(double* v, const double* st, int atoms, int couple, double dt) {
    double dt4 = 0.25 * dt, dthalf = 0.5 * dt;
    double t2 = st[MTK_OMEGA_DOT] + st[MTK_OMEGA_DOT + 1] + st[MTK_OMEGA_DOT + 2];
    t2 = t2 / (3 * atoms);
    double f0 = relax_exp(-dt4 * (st[MTK_OMEGA_DOT] + t2));
    double f1 = relax_exp(-dt4 * (st[MTK_OMEGA_DOT + 1] + t2));
    double f2 = relax_exp(-dt4 * (st[MTK_OMEGA_DOT + 2] + t2));
    v[0] *= f0;
    v[1] *= f1;
    v[2] *= f2;
    if (couple == MTK_TRI) {
        v[0] += -dthalf * (v[1] * st[MTK_OMEGA_DOT + 5] + v[2] * st[MTK_OMEGA_DOT + 4]);
        v[1] += -dthalf * v[2] * st[MTK_OMEGA_DOT + 3];
    }
    v[0] *= f0;
    v[1] *= f1;
    v[2] *= f2;
}

// Mtk.tilts: one half of remap's tilt update.
__device__ void mtk_tilts(double* h, const double* od, double dto) {
    double dto2 = dto / 2.0, dto4 = dto / 4.0, dto8 = dto / 8.0;
    double e = relax_exp(dto8 * od[0]);
    h[4] *= e;
    h[4] += dto4 * (od[5] * h[3] + od[4] * h[2]);
    h[4] *= e;
    e = relax_exp(dto4 * od[1]);
    h[3] *= e;
    h[3] += dto2 * (od[3] * h[2]);
    h[3] *= e;
    e = relax_exp(dto4 * od[0]);
    h[5] *= e;
    h[5] += dto2 * (od[5] * h[1]);
    h[5] *= e;
    e = relax_exp(dto8 * od[0]);
    h[4] *= e;
    h[4] += dto4 * (od[5] * h[3] + od[4] * h[2]);
    h[4] *= e;
}

// Mtk.inverse.
__device__ void mtk_inverse(const double* c, double* inv) {
    for (int q = 0; q < 9; q++) inv[q] = 0;
    if (c[1] == 0 && c[2] == 0 && c[5] == 0) {
        double h0 = c[0], h1 = c[4], h2 = c[8], h3 = c[7], h4 = c[6], h5 = c[3];
        inv[0] = 1.0 / h0;
        inv[4] = 1.0 / h1;
        inv[8] = 1.0 / h2;
        inv[7] = -h3 / (h1 * h2);
        inv[6] = (h3 * h5 - h1 * h4) / (h0 * h1 * h2);
        inv[3] = -h5 / (h0 * h1);
        return;
    }
    double det = c[0] * (c[4] * c[8] - c[5] * c[7]) - c[1] * (c[3] * c[8] - c[5] * c[6]) + c[2] * (c[3] * c[7] - c[4] * c[6]);
    inv[0] = (c[4] * c[8] - c[5] * c[7]) / det;
    inv[1] = (c[2] * c[7] - c[1] * c[8]) / det;
    inv[2] = (c[1] * c[5] - c[2] * c[4]) / det;
    inv[3] = (c[5] * c[6] - c[3] * c[8]) / det;
    inv[4] = (c[0] * c[8] - c[2] * c[6]) / det;
    inv[5] = (c[2] * c[3] - c[0] * c[5]) / det;
    inv[6] = (c[3] * c[7] - c[4] * c[6]) / det;
    inv[7] = (c[1] * c[6] - c[0] * c[7]) / det;
    inv[8] = (c[0] * c[4] - c[1] * c[3]) / det;
}

// Mtk.remap's cell half: `cell` and `lo` (in st) dilated by half a step; the old cell and corner kept for the atoms.
__device__ void mtk_remap_cell(double* cell, double* st, int couple, double dt) {
    double dto = 0.5 * dt;
    double lo[3] = {st[MTK_LO], st[MTK_LO + 1], st[MTK_LO + 2]};
    if (!(cell[1] == 0 && cell[2] == 0 && cell[5] == 0)) {
        double e = relax_exp(dto * st[MTK_OMEGA_DOT]);
        for (int d = 0; d < 3; d++) lo[d] = (lo[d] - st[MTK_FIXED + d]) * e + st[MTK_FIXED + d];
        for (int x = 0; x < 9; x++) cell[x] *= e;
    } else {
        double h[6] = {cell[0], cell[4], cell[8], cell[7], cell[6], cell[3]};
        bool tri = couple == MTK_TRI;
        bool scaleXy = !tri && h[5] != 0, scaleXz = !tri && h[4] != 0, scaleYz = !tri && h[3] != 0;
        double od[6];
        for (int q = 0; q < 6; q++) od[q] = st[MTK_OMEGA_DOT + q];
        if (tri) mtk_tilts(h, od, dto);
        double length[3];
        for (int d = 0; d < 3; d++) {
            double e = relax_exp(dto * od[d]);
            double hi = lo[d] + h[d];
            lo[d] = (lo[d] - st[MTK_FIXED + d]) * e + st[MTK_FIXED + d];
            hi = (hi - st[MTK_FIXED + d]) * e + st[MTK_FIXED + d];
            length[d] = hi - lo[d];
            if (d == 1 && scaleXy) h[5] *= e;
            if (d == 2) {
                if (scaleXz) h[4] *= e;
                if (scaleYz) h[3] *= e;
            }
        }
        if (tri) mtk_tilts(h, od, dto);
        for (int d = 0; d < 3; d++) h[d] = length[d];
        cell[0] = h[0];
        cell[3] = h[5];
        cell[4] = h[1];
        cell[6] = h[4];
        cell[7] = h[3];
        cell[8] = h[2];
    }
    st[MTK_LO] = lo[0];
    st[MTK_LO + 1] = lo[1];
    st[MTK_LO + 2] = lo[2];
}

// An atom's position from the old cell (inverse `inv`, corner `lo`) to the new (`cell`, `lo2`).
__device__ __forceinline__ void mtk_move(double* r, const double* inv, const double* lo, const double* cell, const double* lo2) {
    double dx = r[0] - lo[0], dy = r[1] - lo[1], dz = r[2] - lo[2];
    double l0 = dx * inv[0] + dy * inv[3] + dz * inv[6];
    double l1 = dx * inv[1] + dy * inv[4] + dz * inv[7];
    double l2 = dx * inv[2] + dy * inv[5] + dz * inv[8];
    r[0] = l0 * cell[0] + l1 * cell[3] + l2 * cell[6] + lo2[0];
    r[1] = l0 * cell[1] + l1 * cell[4] + l2 * cell[7] + lo2[1];
    r[2] = l0 * cell[2] + l1 * cell[5] + l2 * cell[8] + lo2[2];
}

// CellImages.pack's columns of a cell changed on the device: RECIPROCAL (b×c, c×a, a×b over the
// signed volume), IMAGES (the offsets a scan takes beyond the nearest image) and CELL_KIND.
__device__ void mtk_store_cell(int* ints, int cap, double* doubles, int k, const double* c, double cutoff) {
    double det = c[0] * (c[4] * c[8] - c[5] * c[7]) - c[1] * (c[3] * c[8] - c[5] * c[6]) + c[2] * (c[3] * c[7] - c[4] * c[6]);
    double rec[9] = {c[4] * c[8] - c[5] * c[7], c[5] * c[6] - c[3] * c[8], c[3] * c[7] - c[4] * c[6],
                     c[7] * c[2] - c[8] * c[1], c[8] * c[0] - c[6] * c[2], c[6] * c[1] - c[7] * c[0],
                     c[1] * c[5] - c[2] * c[4], c[2] * c[3] - c[0] * c[5], c[0] * c[4] - c[1] * c[3]};
    int scanned = 0;
    for (int d = 0; d < 3; d++) {
        double x = rec[3 * d] / det, y = rec[3 * d + 1] / det, z = rec[3 * d + 2] / det;
        double face = 1 / sqrt(x * x + y * y + z * z);
        int images = (int) floor(cutoff / face * (1 + 1e-12) + 0.5);
        ints[(RELAX_IMAGES_A + d) * cap + k] = images;
        scanned += images;
    }
    for (int x = 0; x < 9; x++) {
        doubles[(RELAX_CELL + x) * cap + k] = c[x];
        doubles[(RELAX_RECIPROCAL + x) * cap + k] = rec[x] / det;
    }
    bool ortho = c[1] == 0 && c[2] == 0 && c[3] == 0 && c[5] == 0 && c[6] == 0 && c[7] == 0;
    ints[RELAX_CELL_KIND * cap + k] = ortho && scanned == 0 ? RELAX_CELL_NEAREST : RELAX_CELL_IMAGES;
}

// An MTK barostat's half of a step (SubStage.Barostat; CpuRelaxKernels.barostatBefore/After, the
// same operations): one thread per system in sub-stage `sub`, over its atoms. `before` (neither
// fresh, flagged nor done): the first step sets the barostat and the chain at rest; the barostat's
// chain, the thermostat's (`thermostat`), ω̇ under the last evaluation's virial, the velocities
// scaled, the half kick, the cell and each atom dilated around the drift (the cell's columns
// rewritten: CellImages' for the pair kernels). Otherwise (neither fresh nor flagged): the half
// kick, the scaling, ω̇ under the new virial, the chains. A system without a virial is flagged
// RELAX_FLAG_NO_VIRIAL. A listed system's Verlet lists follow the new cell (relax_list_check).
extern "C" __global__ void relax_mtk(int systems, int before, int* ints, int cap, double* doubles, double* pos, double* vel,
                                     const double* force, const double* mass, int couple, double p, double pfreq, int pchain,
                                     int thermostat, int chain, int tloop, double kT, double tfreq, double ptempKT, double cutoff,
                                     double maxStep2, int sub) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    if (!relax_half(ints, cap, k, sub, before)) return;
    int start = ints[RELAX_START * cap + k];
    int n = ints[RELAX_COUNT * cap + k];
    double w[9], cell[9], st[MTK_STATE];
    if (!relax_cell_virial(ints, cap, doubles, k, cell, w)) return;
    for (int q = 0; q < MTK_STATE; q++) st[q] = doubles[(RELAX_BARO + q) * cap + k];
    double eta[RELAX_NH_MAX_CHAIN], etaDot[RELAX_NH_MAX_CHAIN + 1], etaDotDot[RELAX_NH_MAX_CHAIN];
    int tch = thermostat ? chain : 0;
    double dt = doubles[RELAX_DT * cap + k];
    double dof = 3.0 * n - 3;
    double ke;
    if (before && ints[RELAX_TAKEN * cap + k] == 0) {  // LAMMPS's setup
        ke = mtk_mv2(vel, mass, start, n);
        double kTb = thermostat ? kT : ptempKT > 0 ? ptempKT : ke / dof;
        for (int q = 0; q < MTK_STATE; q++) st[q] = 0;
        st[MTK_VOL0] = mtk_volume(cell);
        st[MTK_KT] = kTb;
        st[MTK_FIXED] = 0.5 * cell[0];
        st[MTK_FIXED + 1] = 0.5 * cell[4];
        st[MTK_FIXED + 2] = 0.5 * cell[8];
        double m = kTb / (pfreq * pfreq);
        for (int q = 1; q < pchain; q++) st[MTK_ETAP_DOTDOT + q] = (0 - kTb) / m;
        double qk = kT / (tfreq * tfreq);
        for (int q = 0; q < tch; q++) eta[q] = etaDot[q] = etaDotDot[q] = 0;
        for (int q = 1; q < tch; q++) etaDotDot[q] = (0 - kT) / qk;
        doubles[RELAX_NH_CONSERVED0 * cap + k] = doubles[RELAX_ENERGY * cap + k] + 0.5 * ke;
    } else {
        for (int q = 0; q < tch; q++) {
            eta[q] = doubles[(RELAX_NH_ETA + q) * cap + k];
            etaDot[q] = doubles[(RELAX_NH_ETA_DOT + q) * cap + k];
            etaDotDot[q] = doubles[(RELAX_NH_ETA_DOTDOT + q) * cap + k];
        }
        ke = doubles[RELAX_NH_KE * cap + k];
    }
    etaDot[tch] = 0;
    double kin[6];
    if (before) {
        mtk_chain(st, n, couple, pfreq, pchain, dt);
        if (thermostat) ke = relax_nh_half(vel, start, n, eta, etaDot, etaDotDot, chain, tloop, ke, kT, tfreq, dt);
        double volume = mtk_volume(cell);
        double mv2 = 0;
        if (couple == MTK_ISO) {
            mv2 = mtk_mv2(vel, mass, start, n);
            for (int c = 0; c < 6; c++) kin[c] = 0;
        } else {
            mtk_kinetic(vel, mass, start, n, kin);
        }
        mtk_omega(st, kin, mv2, ke, w, volume, n, couple, p, pfreq, dt);
        double cell0[9], cell1[9], lo0[3], lo1[3], inv0[9], inv1[9];
        for (int x = 0; x < 9; x++) cell0[x] = cell[x];
        for (int d = 0; d < 3; d++) lo0[d] = st[MTK_LO + d];
        mtk_remap_cell(cell, st, couple, dt);
        for (int x = 0; x < 9; x++) cell1[x] = cell[x];
        for (int d = 0; d < 3; d++) lo1[d] = st[MTK_LO + d];
        mtk_remap_cell(cell, st, couple, dt);
        mtk_inverse(cell0, inv0);
        mtk_inverse(cell1, inv1);
        double lo2[3] = {st[MTK_LO], st[MTK_LO + 1], st[MTK_LO + 2]};
        bool runaway = false;
        for (int i = start; i < start + n; i++) {
            double* v = vel + 3 * i;
            mtk_scale(v, st, n, couple, dt);
            double kk = 0.5 * dt / mass[i];
            v[0] += kk * force[3 * i];
            v[1] += kk * force[3 * i + 1];
            v[2] += kk * force[3 * i + 2];
            double r[3] = {pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]};
            double r0[3] = {r[0], r[1], r[2]};
            mtk_move(r, inv0, lo0, cell1, lo1);
            for (int e = 0; e < 3; e++) r[e] += dt * v[e];
            mtk_move(r, inv1, lo1, cell, lo2);
            for (int e = 0; e < 3; e++) pos[3 * i + e] = r[e];
            double dx = r[0] - r0[0], dy = r[1] - r0[1], dz = r[2] - r0[2];
            runaway |= dx * dx + dy * dy + dz * dz > maxStep2;
        }
        mtk_store_cell(ints, cap, doubles, k, cell, cutoff);
        if (runaway) ints[RELAX_FLAG * cap + k] = RELAX_FLAG_RUNAWAY;
    } else {
        for (int i = start; i < start + n; i++) {
            double* v = vel + 3 * i;
            double kk = 0.5 * dt / mass[i];
            v[0] += kk * force[3 * i];
            v[1] += kk * force[3 * i + 1];
            v[2] += kk * force[3 * i + 2];
            mtk_scale(v, st, n, couple, dt);
        }
        double mv2 = mtk_mv2(vel, mass, start, n);
        if (couple != MTK_ISO) {
            mtk_kinetic(vel, mass, start, n, kin);
        } else {
            for (int c = 0; c < 6; c++) kin[c] = 0;
        }
        mtk_omega(st, kin, mv2, mv2, w, mtk_volume(cell), n, couple, p, pfreq, dt);
        ke = mv2;
        if (thermostat) ke = relax_nh_half(vel, start, n, eta, etaDot, etaDotDot, chain, tloop, ke, kT, tfreq, dt);
        mtk_chain(st, n, couple, pfreq, pchain, dt);
    }
    doubles[RELAX_NH_KE * cap + k] = ke;
    for (int q = 0; q < tch; q++) {
        doubles[(RELAX_NH_ETA + q) * cap + k] = eta[q];
        doubles[(RELAX_NH_ETA_DOT + q) * cap + k] = etaDot[q];
        doubles[(RELAX_NH_ETA_DOTDOT + q) * cap + k] = etaDotDot[q];
    }
    for (int q = 0; q < MTK_STATE; q++) doubles[(RELAX_BARO + q) * cap + k] = st[q];
}

// Variable-cell FIRE (SubStage.CellRelaxation, CellFilter: ASE's UnitCellFilter), as
// CpuRelaxKernels.fireCellStep/cellForces: the starting cell, the cell's velocities and (FIRE
// 2.0) its last step in RelaxColumns.CELL_START / CELL_VELOCITY / CELL_LAST (BARO + 0 … 26).
#define RELAX_CELL_START RELAX_BARO
#define RELAX_CELL_VELOCITY (RELAX_BARO + 9)
#define RELAX_CELL_LAST (RELAX_BARO + 18)

// CellFilter.factor: LU with partial pivoting (dgetf2); false if singular.
__device__ bool cf_factor(const double* a, double* lu, int* piv) {
    for (int q = 0; q < 9; q++) lu[q] = a[q];
    for (int j = 0; j < 3; j++) {
        int p = j;
        for (int i = j + 1; i < 3; i++) if (fabs(lu[3 * i + j]) > fabs(lu[3 * p + j])) p = i;
        piv[j] = p;
        if (p != j) {
            for (int c = 0; c < 3; c++) {
                double t = lu[3 * j + c];
                lu[3 * j + c] = lu[3 * p + c];
                lu[3 * p + c] = t;
            }
        }
        if (lu[3 * j + j] == 0) return false;
        double r = 1.0 / lu[3 * j + j];
        for (int i = j + 1; i < 3; i++) lu[3 * i + j] *= r;
        for (int i = j + 1; i < 3; i++)
            for (int c = j + 1; c < 3; c++) lu[3 * i + c] -= lu[3 * i + j] * lu[3 * j + c];
    }
    return true;
}

// CellFilter.substitute.
__device__ void cf_substitute(const double* lu, const int* piv, double* b) {
    for (int j = 0; j < 3; j++) {
        int p = piv[j];
        if (p != j) {
            double t = b[j];
            b[j] = b[p];
            b[p] = t;
        }
    }
    for (int i = 1; i < 3; i++)
        for (int q = 0; q < i; q++) b[i] -= lu[3 * i + q] * b[q];
    for (int i = 2; i >= 0; i--) {
        for (int q = i + 1; q < 3; q++) b[i] -= lu[3 * i + q] * b[q];
        b[i] /= lu[3 * i + i];
    }
}

// CellFilter.solve: X with A·X = B.
__device__ bool cf_solve(const double* a, const double* b, double* x) {
    double lu[9];
    int piv[3];
    if (!cf_factor(a, lu, piv)) return false;
    for (int j = 0; j < 3; j++) {
        double col[3] = {b[j], b[3 + j], b[6 + j]};
        cf_substitute(lu, piv, col);
        x[j] = col[0];
        x[3 + j] = col[1];
        x[6 + j] = col[2];
    }
    return true;
}

// CellFilter.deformation (F, row-major) and the cell rows' forces (g, 9) under pressure p, the
// mask (bit q: Voigt component q relaxed) and hydrostatic; false for a singular cell.
__device__ bool cf_cell(const double* orig, const double* cell, const double* w, double p, int mask, int hydrostatic, double cellFactor,
                        double* def, double* g) {
    double t[9];
    if (!cf_solve(orig, cell, t)) return false;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) def[3 * a + b] = t[3 * b + a];
    double c0 = cell[0], c1 = cell[1], c2 = cell[2], c3 = cell[3], c4 = cell[4], c5 = cell[5], c6 = cell[6], c7 = cell[7], c8 = cell[8];
    double volume = fabs(c0 * (c4 * c8 - c5 * c7) - c1 * (c3 * c8 - c5 * c6) + c2 * (c3 * c7 - c4 * c6));
    double v[9];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double stress = -w[3 * a + b] / volume + (a == b ? p : 0);
            v[3 * a + b] = -volume * stress;
        }
    double vt[9] = {v[0], v[3], v[6], v[1], v[4], v[7], v[2], v[5], v[8]};
    double s[9];
    if (!cf_solve(def, vt, s)) return false;
    double vir[9] = {s[0], s[3], s[6], s[1], s[4], s[7], s[2], s[5], s[8]};
    if (hydrostatic) {
        double tr = vir[0] + vir[4] + vir[8];
        for (int q = 0; q < 9; q++) vir[q] = 0;
        vir[0] = tr / 3.0;
        vir[4] = tr / 3.0;
        vir[8] = tr / 3.0;
    }
    const int voigt[9] = {0, 5, 4, 5, 1, 3, 4, 3, 2};
    for (int q = 0; q < 9; q++) {
        if (((mask >> voigt[q]) & 1) == 0) vir[q] *= 0;
        g[q] = vir[q] / cellFactor;
    }
    return true;
}

// CpuRelaxKernels.startCell: the starting cell into `orig` — the cell now (stored, the cell's
// velocities zeroed) when `first`, else the stored one.
__device__ void cf_start(double* doubles, int cap, int k, bool first, const double* cell, double* orig) {
    for (int q = 0; q < 9; q++) {
        if (first) {
            orig[q] = cell[q];
            doubles[(RELAX_CELL_START + q) * cap + k] = cell[q];
            doubles[(RELAX_CELL_VELOCITY + q) * cap + k] = 0;
        } else {
            orig[q] = doubles[(RELAX_CELL_START + q) * cap + k];
        }
    }
}

// Atom i's filter force component b: f_i · F.
__device__ __forceinline__ double cf_g(const double* force, long i, int b, const double* def) {
    return force[3 * i] * def[b] + force[3 * i + 1] * def[3 + b] + force[3 * i + 2] * def[6 + b];
}

// After an evaluation: FMAX of each unflagged system in `sub` (fresh ones too) is its filter's;
// a fresh system's cell becomes its starting cell (the cell's velocities zeroed).
extern "C" __global__ void relax_cell_forces(int systems, int* ints, int cap, double* doubles, const double* force, double p, int mask,
                                             int hydrostatic, int sub) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    if (ints[RELAX_SUB * cap + k] != sub || ints[RELAX_FLAG * cap + k] != 0) return;
    double w[9], cell[9], orig[9], def[9], g[9];
    if (!relax_cell_virial(ints, cap, doubles, k, cell, w)) return;
    cf_start(doubles, cap, k, ints[RELAX_FRESH * cap + k] != 0, cell, orig);  // a fresh system's cell is its start
    int n = ints[RELAX_COUNT * cap + k];
    long start = ints[RELAX_START * cap + k];
    if (!cf_cell(orig, cell, w, p, mask, hydrostatic, n, def, g)) {
        ints[RELAX_FLAG * cap + k] = RELAX_FLAG_NON_FINITE;
        return;
    }
    double max = 0;
    for (long i = start; i < start + n; i++) {
        double gx = cf_g(force, i, 0, def), gy = cf_g(force, i, 1, def), gz = cf_g(force, i, 2, def);
        max = fmax(max, gx * gx + gy * gy + gz * gz);
    }
    for (int d = 0; d < 3; d++) max = fmax(max, g[3 * d] * g[3 * d] + g[3 * d + 1] * g[3 * d + 1] + g[3 * d + 2] * g[3 * d + 2]);
    doubles[RELAX_FMAX * cap + k] = sqrt(max);
}

// FIRE 2.0's part of a cell relaxation step over the n + 3 rows (Fire2.step over the filter's
// rows, as CpuRelaxKernels.fireCellStep gives them: the cell rows weigh the atoms' mean mass, their
// last step in RELAX_CELL_LAST): the power, the time step and mixing, on an uphill step the
// velocities zeroed (`uphill` set: the positions then take back half of the last step, which
// the caller still reads from `last` and `lc`), the kick and the mixing. Returns the step's scale
// (MAXSTEP over the step's length where that is longer).
__device__ double cf_fire2(int* ints, int cap, double* doubles, int k, long a, long b, double* vel, const double* force, double* last,
                           const double* mass, const double* def, const double* gc, double* vc, double* lc, double mean, double* dt,
                           bool* uphill) {
    double alpha = doubles[RELAX_ALPHA * cap + k];
    int npos = ints[RELAX_NSTEPS * cap + k];
    int stepIndex = ints[RELAX_TAKEN * cap + k];
    if (stepIndex == 0) {
        for (long i = 3 * a; i < 3 * b; i++) {
            vel[i] = 0;
            last[i] = 0;
        }
        for (int q = 0; q < 9; q++) {
            vc[q] = 0;
            lc[q] = 0;
        }
    }
    double p = 0;
    for (long i = a; i < b; i++)
        for (int e = 0; e < 3; e++) p += cf_g(force, i, e, def) * vel[3 * i + e];
    for (int q = 0; q < 9; q++) p += gc[q] * vc[q];
    *uphill = !(p > 0);
    if (p > 0) {
        npos++;
        if (npos > FIRE2_NDELAY) {
            double x = *dt * FIRE2_FINC;
            *dt = (x != x || x < FIRE2_DTMAX) ? x : FIRE2_DTMAX;  // Math.min
            alpha *= FIRE2_FA;
        }
    } else {
        npos = 0;
        if (stepIndex >= FIRE2_NDELAY) {
            double x = *dt * FIRE2_FDEC;
            *dt = (x != x || x > FIRE2_DTMIN) ? x : FIRE2_DTMIN;  // Math.max
            alpha = FIRE2_ASTART;
        }
        for (long i = 3 * a; i < 3 * b; i++) vel[i] = 0;
        for (int q = 0; q < 9; q++) vc[q] = 0;
    }
    double ff = 0, vv = 0;
    for (long i = a; i < b; i++)
        for (int e = 0; e < 3; e++) {
            double g = cf_g(force, i, e, def);
            vel[3 * i + e] += *dt * g / mass[i];
            ff += g * g;
            vv += vel[3 * i + e] * vel[3 * i + e];
        }
    for (int q = 0; q < 9; q++) {
        vc[q] += *dt * gc[q] / mean;
        ff += gc[q] * gc[q];
        vv += vc[q] * vc[q];
    }
    double nf = sqrt(ff), nv = sqrt(vv);
    double drr = 0;
    for (long i = a; i < b; i++)
        for (int e = 0; e < 3; e++) {
            double v = (1 - alpha) * vel[3 * i + e] + (nf > 0 ? alpha * cf_g(force, i, e, def) / nf * nv : 0);
            vel[3 * i + e] = v;
            drr += *dt * v * *dt * v;
        }
    for (int q = 0; q < 9; q++) {
        vc[q] = (1 - alpha) * vc[q] + (nf > 0 ? alpha * gc[q] / nf * nv : 0);
        drr += *dt * vc[q] * *dt * vc[q];
    }
    double norm = sqrt(drr);
    doubles[RELAX_ALPHA * cap + k] = alpha;
    ints[RELAX_NSTEPS * cap + k] = npos;
    return norm > FIRE2_MAXSTEP ? FIRE2_MAXSTEP / norm : 1;
}

// One ASE-exact FIRE step (`fire2`: a FIRE 2.0 step, cf_fire2) over each moving system's atoms
// and cell together (CellFilter's n + 3 rows, in their order: atoms, then the cell's), as
// CpuRelaxKernels.fireCellStep: the filter's positions and forces worked out atom by atom in each
// pass, the new cell from the cell rows, each atom then mapped through it; the cell's columns
// rewritten (CellImages' too).
extern "C" __global__ void relax_fire_cell(int systems, int* ints, int cap, double* doubles, double* pos, double* vel, const double* force,
                                           double* last, const double* mass, int fire2, double p, int mask, int hydrostatic, double cutoff,
                                           double maxStep2, int sub) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    if (!relax_moves(ints, cap, k, sub)) return;
    int n = ints[RELAX_COUNT * cap + k];
    long a = ints[RELAX_START * cap + k];
    long b = a + n;
    double w[9], cell[9], orig[9], vc[9], def[9], gc[9];
    if (!relax_cell_virial(ints, cap, doubles, k, cell, w)) return;
    cf_start(doubles, cap, k, ints[RELAX_TAKEN * cap + k] == 0, cell, orig);  // before its first step: the cell now
    for (int q = 0; q < 9; q++) vc[q] = doubles[(RELAX_CELL_VELOCITY + q) * cap + k];
    doubles[RELAX_PREV_ENERGY * cap + k] = doubles[RELAX_ENERGY * cap + k];
    double cf = n;
    double lu[9];
    int piv[3];
    if (!cf_cell(orig, cell, w, p, mask, hydrostatic, cf, def, gc) || !cf_factor(def, lu, piv)) {
        ints[RELAX_FLAG * cap + k] = RELAX_FLAG_NON_FINITE;
        return;
    }
    double dt = doubles[RELAX_DT * cap + k];
    double lc[9];  // FIRE 2.0: the cell rows' last step
    bool uphill = false;
    double scale = 1, norm = 0;
    if (fire2) {
        double mean = 0;
        for (long i = a; i < b; i++) mean += mass[i];
        mean /= n;
        for (int q = 0; q < 9; q++) lc[q] = doubles[(RELAX_CELL_LAST + q) * cap + k];
        scale = cf_fire2(ints, cap, doubles, k, a, b, vel, force, last, mass, def, gc, vc, lc, mean, &dt, &uphill);
    } else {
        double alpha = doubles[RELAX_ALPHA * cap + k];
        int nsteps = ints[RELAX_NSTEPS * cap + k];
        if (ints[RELAX_STARTED * cap + k] == 0) {
            for (long i = 3 * a; i < 3 * b; i++) vel[i] = 0;
            for (int q = 0; q < 9; q++) vc[q] = 0;
            ints[RELAX_STARTED * cap + k] = 1;
        } else {
            double vf = 0;
            for (long i = a; i < b; i++)
                for (int e = 0; e < 3; e++) vf += cf_g(force, i, e, def) * vel[3 * i + e];
            for (int q = 0; q < 9; q++) vf += gc[q] * vc[q];
            if (vf > 0) {
                double ff = 0, vv = 0;
                for (long i = a; i < b; i++)
                    for (int e = 0; e < 3; e++) {
                        double g = cf_g(force, i, e, def);
                        ff += g * g;
                        vv += vel[3 * i + e] * vel[3 * i + e];
                    }
                for (int q = 0; q < 9; q++) {
                    ff += gc[q] * gc[q];
                    vv += vc[q] * vc[q];
                }
                double nf = sqrt(ff), nv = sqrt(vv);
                for (long i = a; i < b; i++)
                    for (int e = 0; e < 3; e++) vel[3 * i + e] = (1.0 - alpha) * vel[3 * i + e] + alpha * cf_g(force, i, e, def) / nf * nv;
                for (int q = 0; q < 9; q++) vc[q] = (1.0 - alpha) * vc[q] + alpha * gc[q] / nf * nv;
                if (nsteps > FIRE_NMIN) {
                    double x = dt * FIRE_FINC;
                    dt = (x != x || x < FIRE_DTMAX) ? x : FIRE_DTMAX;
                    alpha *= FIRE_FA;
                }
                nsteps++;
            } else {
                for (long i = 3 * a; i < 3 * b; i++) vel[i] = 0;
                for (int q = 0; q < 9; q++) vc[q] = 0;
                alpha = FIRE_ASTART;
                dt *= FIRE_FDEC;
                nsteps = 0;
            }
        }
        double drr = 0;
        for (long i = a; i < b; i++)
            for (int e = 0; e < 3; e++) {
                double v = vel[3 * i + e] + dt * cf_g(force, i, e, def);
                vel[3 * i + e] = v;
                double dr = dt * v;
                drr += dr * dr;
            }
        for (int q = 0; q < 9; q++) {
            vc[q] = vc[q] + dt * gc[q];
            double dr = dt * vc[q];
            drr += dr * dr;
        }
        norm = sqrt(drr);
        doubles[RELAX_ALPHA * cap + k] = alpha;
        ints[RELAX_NSTEPS * cap + k] = nsteps;
    }
    double fnew[9];  // the cell rows' new positions over cf: F'
    for (int q = 0; q < 9; q++) {
        double x = cf * def[q];
        if (fire2) {
            if (uphill) x -= 0.5 * lc[q];
            lc[q] = scale * dt * vc[q];
            x += lc[q];
            doubles[(RELAX_CELL_LAST + q) * cap + k] = lc[q];
        } else {
            double dr = dt * vc[q];
            x += norm > FIRE_MAXSTEP ? FIRE_MAXSTEP * dr / norm : dr;
        }
        fnew[q] = x / cf;
    }
    for (int r = 0; r < 3; r++)  // H₀ @ F'ᵀ
        for (int c = 0; c < 3; c++) cell[3 * r + c] = orig[3 * r] * fnew[3 * c] + orig[3 * r + 1] * fnew[3 * c + 1] + orig[3 * r + 2] * fnew[3 * c + 2];
    bool runaway = false;
    for (long i = a; i < b; i++) {
        double x[3] = {pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]};
        double r0[3] = {x[0], x[1], x[2]};
        cf_substitute(lu, piv, x);
        for (int e = 0; e < 3; e++) {
            if (fire2) {
                if (uphill) x[e] -= 0.5 * last[3 * i + e];
                last[3 * i + e] = scale * dt * vel[3 * i + e];
                x[e] += last[3 * i + e];
            } else {
                double dr = dt * vel[3 * i + e];
                x[e] += norm > FIRE_MAXSTEP ? FIRE_MAXSTEP * dr / norm : dr;
            }
        }
        double d2 = 0;
        for (int c = 0; c < 3; c++) {
            double r = x[0] * fnew[3 * c] + x[1] * fnew[3 * c + 1] + x[2] * fnew[3 * c + 2];
            pos[3 * i + c] = r;
            d2 += (r - r0[c]) * (r - r0[c]);
        }
        runaway = runaway || d2 > maxStep2;
    }
    for (int q = 0; q < 9; q++) doubles[(RELAX_CELL_VELOCITY + q) * cap + k] = vc[q];
    mtk_store_cell(ints, cap, doubles, k, cell, cutoff);
    if (runaway) ints[RELAX_FLAG * cap + k] = RELAX_FLAG_RUNAWAY;
    doubles[RELAX_DT * cap + k] = dt;
}
