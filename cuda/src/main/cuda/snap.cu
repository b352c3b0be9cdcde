// Penstock's SNAP kernels: the bispectrum descriptors of dev.penstock.atoms.potential.Bispectrum
// and the models over them (SNAP linear and quadratic, ML-IAP linear, quadratic and nn) on a GPU,
// one thread per atom over a full neighbour list. Every sum is a gather in the list's order (no
// atomics): a system's results do not depend on the scheduling, and agree with the CPU path
// (DescriptorModel: a scatter of each atom's pair forces) to rounding.
//
//   snap_ui      U_tot,i = self term + sum_j sfac(r) w_j U(r_ij)          (per atom)
//   snap_bi      Z_i (kept for snap_yi) and B_i = 2 sum conj(U_tot) Z, less B_0 (bzeroflag)
//   snap_linear  e_i, beta_i = dE/dB of a linear or quadratic model      (or mliap_nn: a network)
//   snap_yi      Y_i = sum beta-weighted Z terms
//   snap_deidrj  dE_i/dr_j = 2 Re sum dU_ij/dr_j . Y_i, one entry per list entry
//   snap_force   f_i = sum_j dE_i/dr_j - dE_j/dr_i (the reverse entry), w_i = sum_j -d_ij (x) dE_i/dr_j
//   snap_virial  one thread per system: its atoms' w_i summed in atom order into the VIRIAL columns
//   zbl_add      for a sum with ZBL: its pair terms added to e_i, f_i and w_i (before snap_virial)
//
// Layout: positions x[3i..3i+2]; the full list in CSR: atom i's neighbours are q in
// [start[i], start[i+1]), atom nbr[q] at x[nbr[q]] + shift[3q..3q+2]; rev[q] is the entry of i
// in nbr[q]'s row with the opposite shift. type[i] is the atom's element in the model's order.
// Per-atom arrays hold a fixed stride of doubles each (scratch: the atom's own working space).
//
// The index tables (DescriptorModel.Tables): tab = idxu_block[jdim], idxcg_block[jdim^3],
// idxb_block[jdim^3], idxz_block[jdim^3], idxb[3 idxb_max] (j1 j2 j), idxz[10 idxz_max] (j1 j2 j
// ma1min ma2max na mb1min mb2max nb jju); consts = rootpq[(jdim+1)^2], bzero[jdim], cglist.
//
// Built into PTX by scripts/build-kernels.sh, as encode.cu.

#include <cuda_runtime.h>

#define SNAP_SWITCH 1
#define SNAP_BZERO 2
#define SNAP_CHEM 4
#define SNAP_BNORM 8
#define SNAP_WSELFALL 16
#define SNAP_MLIAP_CUT 32
#define SNAP_PI 3.14159265358979323846

struct Sna {
    int twojmax, jdim, idxu_max, idxz_max, idxb_max, nelem, flags;
    double rfac0, rmin0;
    const int* idxu_block;
    const int* idxcg_block;
    const int* idxb_block;
    const int* idxz_block;
    const int* idxb;
    const int* idxz;
    const double* rootpq;
    const double* bzero;
    const double* cglist;
};

__device__ __forceinline__ Sna sna_of(const int* tab, const double* consts, int twojmax, int idxb_max, int idxz_max, int nelem, int flags,
                                      double rfac0, double rmin0) {
    Sna s;
    s.twojmax = twojmax;
    s.jdim = twojmax + 1;
    int j3 = s.jdim * s.jdim * s.jdim;
    s.idxz_max = idxz_max;
    s.idxb_max = idxb_max;
    s.nelem = nelem;
    s.flags = flags;
    s.rfac0 = rfac0;
    s.rmin0 = rmin0;
    s.idxu_block = tab;
    s.idxcg_block = tab + s.jdim;
    s.idxb_block = s.idxcg_block + j3;
    s.idxz_block = s.idxb_block + j3;
    s.idxb = s.idxz_block + j3;
    s.idxz = s.idxb + 3 * idxb_max;
    s.idxu_max = tab[twojmax] + s.jdim * s.jdim;
    s.rootpq = consts;
    s.bzero = consts + (s.jdim + 1) * (s.jdim + 1);
    s.cglist = s.bzero + s.jdim;
    return s;
}

__device__ __forceinline__ int b3(const Sna& s, const int* block, int j1, int j2, int j) {
    return block[(j1 * s.jdim + j2) * s.jdim + j];
}

// The cutoff of the pair (ti, tj) and whether rsq is inside it (pair_style snap and mliap differ).
__device__ __forceinline__ bool pair_inside(const Sna& s, const double* radius, double rcutfac, int ti, int tj, double rsq, double* rc) {
    if (s.flags & SNAP_MLIAP_CUT) {
        double cut = ti == tj ? 2.0 * radius[ti] * rcutfac : (radius[ti] + radius[tj]) * rcutfac;
        double cutsq = cut * cut;
        *rc = sqrt(cutsq);
        return rsq < cutsq;
    }
    double c = (radius[ti] + radius[tj]) * rcutfac;
    *rc = c;
    return rsq < c * c && rsq > 1e-20;
}

__device__ __forceinline__ double sfac_of(const Sna& s, double r, double rc) {
    if (!(s.flags & SNAP_SWITCH) || r <= s.rmin0) return 1.0;
    if (r > rc) return 0.0;
    double f = SNAP_PI / (rc - s.rmin0);
    return 0.5 * (cos((r - s.rmin0) * f) + 1.0);
}

__device__ __forceinline__ double dsfac_of(const Sna& s, double r, double rc) {
    if (!(s.flags & SNAP_SWITCH) || r <= s.rmin0 || r > rc) return 0.0;
    double f = SNAP_PI / (rc - s.rmin0);
    return -0.5 * sin((r - s.rmin0) * f) * f;
}

// The Wigner U-functions of one neighbour into u (re, im interleaved), layer by layer from its
// Cayley-Klein parameters, the right half of each layer by inversion symmetry.
__device__ void uarray(const Sna& s, double x, double y, double z, double z0, double r, double* u) {
    double r0inv = 1.0 / sqrt(r * r + z0 * z0);
    double ar = r0inv * z0, ai = -r0inv * z, br = r0inv * y, bi = -r0inv * x;
    const double* rootpq = s.rootpq;
    int pq = s.jdim + 1;
    u[0] = 1.0;
    u[1] = 0.0;
    for (int j = 1; j <= s.twojmax; j++) {
        int jju = s.idxu_block[j];
        int jjup = s.idxu_block[j - 1];
        for (int mb = 0; 2 * mb <= j; mb++) {
            u[2 * jju] = 0.0;
            u[2 * jju + 1] = 0.0;
            for (int ma = 0; ma < j; ma++) {
                double upr = u[2 * jjup], upi = u[2 * jjup + 1];
                double rq = rootpq[(j - ma) * pq + (j - mb)];
                u[2 * jju] += rq * (ar * upr + ai * upi);
                u[2 * jju + 1] += rq * (ar * upi - ai * upr);
                rq = rootpq[(ma + 1) * pq + (j - mb)];
                u[2 * jju + 2] = -rq * (br * upr + bi * upi);
                u[2 * jju + 3] = -rq * (br * upi - bi * upr);
                jju++;
                jjup++;
            }
            jju++;
        }
        jju = s.idxu_block[j];
        jjup = jju + (j + 1) * (j + 1) - 1;
        int mbpar = 1;
        for (int mb = 0; 2 * mb <= j; mb++) {
            int mapar = mbpar;
            for (int ma = 0; ma <= j; ma++) {
                if (mapar == 1) {
                    u[2 * jjup] = u[2 * jju];
                    u[2 * jjup + 1] = -u[2 * jju + 1];
                } else {
                    u[2 * jjup] = -u[2 * jju];
                    u[2 * jjup + 1] = u[2 * jju + 1];
                }
                mapar = -mapar;
                jju++;
                jjup--;
            }
            mbpar = -mbpar;
        }
    }
}

extern "C" __global__ void snap_ui(int n, const double* x, const int* type, const int* start, const int* nbr, const double* shift,
                                   const int* tab, const double* consts, int twojmax, int idxb_max, int idxz_max, int nelem, int flags,
                                   double rfac0, double rmin0, double rcutfac, const double* radius, const double* weight, double* scratch,
                                   int scratch_stride, double* utot, int utot_stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Sna s = sna_of(tab, consts, twojmax, idxb_max, idxz_max, nelem, flags, rfac0, rmin0);
    double* ut = utot + (long) i * utot_stride;
    double* u = scratch + (long) i * scratch_stride;
    int ti = type[i];
    int ie = (flags & SNAP_CHEM) ? ti : 0;
    for (int q = 0; q < 2 * nelem * s.idxu_max; q++) ut[q] = 0.0;
    for (int e = 0; e < nelem; e++) {
        if (e != ie && !(flags & SNAP_WSELFALL)) continue;
        for (int j = 0; j <= twojmax; j++) {
            int jju = s.idxu_block[j];
            for (int ma = 0; ma <= j; ma++) ut[2 * (e * s.idxu_max + jju + ma * (j + 1) + ma)] = 1.0;
        }
    }
    double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    for (int q = start[i]; q < start[i + 1]; q++) {
        int j = nbr[q];
        double dx = x[3 * j] + shift[3 * q] - xi;
        double dy = x[3 * j + 1] + shift[3 * q + 1] - yi;
        double dz = x[3 * j + 2] + shift[3 * q + 2] - zi;
        int tj = type[j];
        double rc;
        if (!pair_inside(s, radius, rcutfac, ti, tj, dx * dx + dy * dy + dz * dz, &rc)) continue;
        double r = sqrt(dx * dx + dy * dy + dz * dz);
        double theta0 = (r - rmin0) * rfac0 * SNAP_PI / (rc - rmin0);
        double z0 = r / tan(theta0);
        uarray(s, dx, dy, dz, z0, r, u);
        double sf = sfac_of(s, r, rc) * weight[tj];
        double* to = ut + 2 * ((flags & SNAP_CHEM) ? tj : 0) * s.idxu_max;
        for (int k = 0; k < 2 * s.idxu_max; k++) to[k] += sf * u[k];
    }
}

// Z(j1, j2, j; ma, mb) of descriptor elements (e1, e2) at z-index jjz: {re, im}.
__device__ void zterm(const Sna& s, const double* ut, int jjz, int e1, int e2, double* zr, double* zi) {
    const int* z = s.idxz + 10 * jjz;
    int j1 = z[0], j2 = z[1], j = z[2], ma1min = z[3], ma2max = z[4], na = z[5], mb1min = z[6], mb2max = z[7], nb = z[8];
    const double* cg = s.cglist + b3(s, s.idxcg_block, j1, j2, j);
    double sr = 0.0, si = 0.0;
    int jju1 = e1 * s.idxu_max + s.idxu_block[j1] + (j1 + 1) * mb1min;
    int jju2 = e2 * s.idxu_max + s.idxu_block[j2] + (j2 + 1) * mb2max;
    int icgb = mb1min * (j2 + 1) + mb2max;
    for (int ib = 0; ib < nb; ib++) {
        double ar = 0.0, ai = 0.0;
        int ma1 = ma1min, ma2 = ma2max;
        int icga = ma1min * (j2 + 1) + ma2max;
        for (int ia = 0; ia < na; ia++) {
            double c = cg[icga];
            double u1r = ut[2 * (jju1 + ma1)], u1i = ut[2 * (jju1 + ma1) + 1];
            double u2r = ut[2 * (jju2 + ma2)], u2i = ut[2 * (jju2 + ma2) + 1];
            ar += c * (u1r * u2r - u1i * u2i);
            ai += c * (u1r * u2i + u1i * u2r);
            ma1++;
            ma2--;
            icga += j2;
        }
        sr += cg[icgb] * ar;
        si += cg[icgb] * ai;
        jju1 += j1 + 1;
        jju2 -= j2 + 1;
        icgb += j2;
    }
    if (s.flags & SNAP_BNORM) {
        sr /= j + 1;
        si /= j + 1;
    }
    *zr = sr;
    *zi = si;
}

extern "C" __global__ void snap_bi(int n, const int* type, const int* tab, const double* consts, int twojmax, int idxb_max, int idxz_max,
                                   int nelem, int flags, const double* utot, int utot_stride, double* zlist, int z_stride, double* blist,
                                   int b_stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Sna s = sna_of(tab, consts, twojmax, idxb_max, idxz_max, nelem, flags, 0, 0);
    const double* ut = utot + (long) i * utot_stride;
    double* zl = zlist + (long) i * z_stride;
    double* bl = blist + (long) i * b_stride;
    for (int e1 = 0, d = 0; e1 < nelem; e1++) {
        for (int e2 = 0; e2 < nelem; e2++, d++) {
            for (int jjz = 0; jjz < idxz_max; jjz++) {
                zterm(s, ut, jjz, e1, e2, &zl[2 * (d * idxz_max + jjz)], &zl[2 * (d * idxz_max + jjz) + 1]);
            }
        }
    }
    for (int e1 = 0, t = 0, d = 0; e1 < nelem; e1++) {
        for (int e2 = 0; e2 < nelem; e2++, d++) {
            for (int e3 = 0; e3 < nelem; e3++, t++) {
                for (int jjb = 0; jjb < idxb_max; jjb++) {
                    int j1 = s.idxb[3 * jjb], j2 = s.idxb[3 * jjb + 1], j = s.idxb[3 * jjb + 2];
                    int jjz = d * idxz_max + b3(s, s.idxz_block, j1, j2, j);
                    int jju = e3 * s.idxu_max + s.idxu_block[j];
                    double sumzu = 0.0;
                    for (int mb = 0; 2 * mb < j; mb++) {
                        for (int ma = 0; ma <= j; ma++) {
                            sumzu += ut[2 * jju] * zl[2 * jjz] + ut[2 * jju + 1] * zl[2 * jjz + 1];
                            jjz++;
                            jju++;
                        }
                    }
                    if (j % 2 == 0) {
                        int mb = j / 2;
                        for (int ma = 0; ma < mb; ma++) {
                            sumzu += ut[2 * jju] * zl[2 * jjz] + ut[2 * jju + 1] * zl[2 * jjz + 1];
                            jjz++;
                            jju++;
                        }
                        sumzu += 0.5 * (ut[2 * jju] * zl[2 * jjz] + ut[2 * jju + 1] * zl[2 * jjz + 1]);
                    }
                    bl[t * idxb_max + jjb] = 2.0 * sumzu;
                }
            }
        }
    }
    if (flags & SNAP_BZERO) {
        int ie = (flags & SNAP_CHEM) ? type[i] : 0;
        for (int t = 0; t < nelem * nelem * nelem; t++) {
            if (!(flags & SNAP_WSELFALL) && t != (ie * nelem + ie) * nelem + ie) continue;
            for (int jjb = 0; jjb < idxb_max; jjb++) bl[t * idxb_max + jjb] -= s.bzero[s.idxb[3 * jjb + 2]];
        }
    }
}

// A linear (or quadratic) model: e_i = c0 + c.B + 1/2 B^T Q B (Q's upper triangle after the
// linear terms), beta_i = dE/dB. coeff: one row of coeff_stride per element.
extern "C" __global__ void snap_linear(int n, const int* type, const double* blist, int b_stride, const double* coeff, int coeff_stride,
                                       int ncoeff, int quadratic, double* energy, double* beta) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double* c = coeff + (long) type[i] * coeff_stride;
    const double* b = blist + (long) i * b_stride;
    double* g = beta + (long) i * b_stride;
    double e = c[0];
    for (int k = 0; k < ncoeff; k++) {
        e += c[k + 1] * b[k];
        g[k] = c[k + 1];
    }
    if (quadratic) {
        int q = ncoeff + 1;
        for (int a = 0; a < ncoeff; a++) {
            double ba = b[a];
            e += 0.5 * c[q] * ba * ba;
            g[a] += c[q] * ba;
            q++;
            for (int k = a + 1; k < ncoeff; k++) {
                double bc = b[k];
                e += c[q] * ba * bc;
                g[a] += c[q] * bc;
                g[k] += c[q] * ba;
                q++;
            }
        }
    }
    energy[i] = e;
}

// A node's value from its weighted sum x and bias (LAMMPS's forms), its derivative into *d.
__device__ __forceinline__ double activate(int kind, double x, double bias, double* d) {
    if (kind == 1) {
        double v = 1. / (1. + exp(-(x + bias)));
        *d = v * (1 - v);
        return v;
    }
    if (kind == 2) {
        double v = 2. / (1. + exp(-2. * (x + bias))) - 1;
        *d = 1. - v * v;
        return v;
    }
    if (kind == 3) {
        double y = x + bias;
        *d = y > 0 ? 1. : 0.;
        return y > 0 ? y : 0.;
    }
    *d = 1;
    return x + bias;
}

// ML-IAP's nn model: layers of nodes[l] nodes (activation act[l]) over the descriptors, each first
// shifted and divided (scale: per element shift[nd], div[nd]); e_i the last layer's node, beta_i
// its gradient back-propagated. coeff: one row of coeff_stride per element (each node: bias,
// then its weights); scratch: per atom 3 sum(nodes) doubles (outputs, derivatives, gradients).
extern "C" __global__ void mliap_nn(int n, const int* type, const double* blist, int b_stride, const double* coeff, int coeff_stride,
                                    const double* scale, int nd, const int* nodes, const int* act, int nl, double* scratch, int scratch_stride,
                                    double* energy, double* beta) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int ti = type[i];
    const double* c = coeff + (long) ti * coeff_stride;
    const double* shift = scale + (long) ti * 2 * nd;
    const double* div = shift + nd;
    const double* d = blist + (long) i * b_stride;
    double* g = beta + (long) i * b_stride;
    int total = 0;
    for (int l = 0; l < nl; l++) total += nodes[l];
    double* out = scratch + (long) i * scratch_stride;  // layer l's nodes at out + offset(l)
    double* deriv = out + total;
    double* back = deriv + total;
    for (int m = 0; m < nodes[0]; m++) {
        double sum = 0;
        for (int q = 0; q < nd; q++) sum += c[m * (nd + 1) + q + 1] * (d[q] - shift[q]) / div[q];
        out[m] = activate(act[0], sum, c[m * (nd + 1)], &deriv[m]);
    }
    int k = 0, at = 0;  // k: the layer's first weight; at: its first node
    if (nl > 1) {
        k += (nd + 1) * nodes[0];
        for (int l = 1; l < nl; l++) {
            int prev = at;
            at += nodes[l - 1];
            for (int m = 0; m < nodes[l]; m++) {
                double sum = 0;
                for (int j = 0; j < nodes[l - 1]; j++) sum += c[k + m * (nodes[l - 1] + 1) + j + 1] * out[prev + j];
                out[at + m] = activate(act[l], sum, c[k + m * (nodes[l - 1] + 1)], &deriv[at + m]);
            }
            k += (nodes[l - 1] + 1) * nodes[l];
        }
    }
    for (int m = 0; m < nodes[nl - 1]; m++) back[at + m] = act[nl - 1] == 0 ? 1 : deriv[at + m];
    for (int l = nl - 1; l > 0; l--) {
        k -= (nodes[l - 1] + 1) * nodes[l];
        int prev = at - nodes[l - 1];
        for (int m = 0; m < nodes[l - 1]; m++) {
            double sum = 0;
            for (int j = 0; j < nodes[l]; j++) sum += c[k + j * (nodes[l - 1] + 1) + m + 1] * back[at + j];
            back[prev + m] = act[l - 1] >= 1 ? sum * deriv[prev + m] : sum;
        }
        at = prev;
    }
    for (int q = 0; q < nd; q++) {
        double sum = 0;
        for (int j = 0; j < nodes[0]; j++) sum += c[j * (nd + 1) + q + 1] * back[j];
        g[q] = sum / div[q];
    }
    energy[i] = out[total - nodes[nl - 1]];
}

extern "C" __global__ void snap_yi(int n, const int* tab, const double* consts, int twojmax, int idxb_max, int idxz_max, int nelem, int flags,
                                   const double* zlist, int z_stride, const double* beta, int b_stride, double* ylist, int y_stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Sna s = sna_of(tab, consts, twojmax, idxb_max, idxz_max, nelem, flags, 0, 0);
    const double* zl = zlist + (long) i * z_stride;
    const double* bt = beta + (long) i * b_stride;
    double* y = ylist + (long) i * y_stride;
    for (int q = 0; q < 2 * nelem * s.idxu_max; q++) y[q] = 0.0;
    for (int e1 = 0, d = 0; e1 < nelem; e1++) {
        for (int e2 = 0; e2 < nelem; e2++, d++) {
            for (int jjz = 0; jjz < idxz_max; jjz++) {
                const int* z = s.idxz + 10 * jjz;
                int j1 = z[0], j2 = z[1], j = z[2], jju = z[9];
                double tr = zl[2 * (d * idxz_max + jjz)], ti = zl[2 * (d * idxz_max + jjz) + 1];
                for (int e3 = 0; e3 < nelem; e3++) {
                    double betaj;
                    if (j >= j1) {
                        int jjb = b3(s, s.idxb_block, j1, j2, j);
                        double bv = bt[((e1 * nelem + e2) * nelem + e3) * idxb_max + jjb];
                        betaj = j1 == j ? (j2 == j ? 3 * bv : 2 * bv) : bv;
                    } else if (j >= j2) {
                        int jjb = b3(s, s.idxb_block, j, j2, j1);
                        double bv = bt[((e3 * nelem + e2) * nelem + e1) * idxb_max + jjb];
                        betaj = j2 == j ? 2 * bv : bv;
                    } else {
                        int jjb = b3(s, s.idxb_block, j2, j, j1);
                        betaj = bt[((e2 * nelem + e3) * nelem + e1) * idxb_max + jjb];
                    }
                    if (!(flags & SNAP_BNORM) && j1 > j) betaj *= (j1 + 1) / (j + 1.0);
                    y[2 * (e3 * s.idxu_max + jju)] += betaj * tr;
                    y[2 * (e3 * s.idxu_max + jju) + 1] += betaj * ti;
                }
            }
        }
    }
}

// dU/dr_j of one neighbour (u: its U-functions) times its switch and weight, plus the switch's
// derivative times U, into du (6 per index: d re/dx dy dz, d im/dx dy dz).
__device__ void duarray(const Sna& s, double x, double y, double z, double z0, double r, double dz0dr, double w, double rc, const double* u,
                        double* du) {
    double rinv = 1.0 / r;
    double ux = x * rinv, uy = y * rinv, uz = z * rinv;
    double r0inv = 1.0 / sqrt(r * r + z0 * z0);
    double ar = z0 * r0inv, ai = -z * r0inv, br = y * r0inv, bi = -x * r0inv;
    double dr0invdr = -(r0inv * r0inv * r0inv) * (r + z0 * dz0dr);
    double dr0inv[3] = {dr0invdr * ux, dr0invdr * uy, dr0invdr * uz};
    double dz0[3] = {dz0dr * ux, dz0dr * uy, dz0dr * uz};
    double dar[3], dai[3], dbr[3], dbi[3];
    for (int c = 0; c < 3; c++) {
        dar[c] = dz0[c] * r0inv + z0 * dr0inv[c];
        dai[c] = -z * dr0inv[c];
        dbr[c] = y * dr0inv[c];
        dbi[c] = -x * dr0inv[c];
    }
    dai[2] += -r0inv;
    dbi[0] += -r0inv;
    dbr[1] += r0inv;
    const double* rootpq = s.rootpq;
    int pq = s.jdim + 1;
    for (int c = 0; c < 6; c++) du[c] = 0;
    for (int j = 1; j <= s.twojmax; j++) {
        int jju = s.idxu_block[j];
        int jjup = s.idxu_block[j - 1];
        for (int mb = 0; 2 * mb <= j; mb++) {
            double rr[3] = {0, 0, 0}, ii[3] = {0, 0, 0};
            for (int ma = 0; ma < j; ma++) {
                double urp = u[2 * jjup], uip = u[2 * jjup + 1];
                const double* p = du + 6 * jjup;
                double rq = rootpq[(j - ma) * pq + (j - mb)];
                double rq2 = rootpq[(ma + 1) * pq + (j - mb)];
                double* t = du + 6 * jju;
                for (int c = 0; c < 3; c++) {
                    rr[c] += rq * (dar[c] * urp + dai[c] * uip + ar * p[c] + ai * p[3 + c]);
                    ii[c] += rq * (dar[c] * uip - dai[c] * urp + ar * p[3 + c] - ai * p[c]);
                }
                for (int c = 0; c < 3; c++) {
                    t[c] = rr[c];
                    t[3 + c] = ii[c];
                }
                for (int c = 0; c < 3; c++) {
                    double nr = -rq2 * (dbr[c] * urp + dbi[c] * uip + br * p[c] + bi * p[3 + c]);
                    double ni = -rq2 * (dbr[c] * uip - dbi[c] * urp + br * p[3 + c] - bi * p[c]);
                    rr[c] = nr;
                    ii[c] = ni;
                }
                jju++;
                jjup++;
            }
            double* t = du + 6 * jju;
            for (int c = 0; c < 3; c++) {
                t[c] = rr[c];
                t[3 + c] = ii[c];
            }
            jju++;
        }
        // the mirrored rows later readers need (the middle row, or the one past it for odd j)
        int first = j / 2;
        jju = s.idxu_block[j] + (j + 1) * first;
        jjup = s.idxu_block[j] + (j + 1) * (j + 1) - 1 - (j + 1) * first;
        int mbpar = first % 2 == 0 ? 1 : -1;
        for (int mb = first; 2 * mb <= j; mb++) {
            int mapar = mbpar;
            for (int ma = 0; ma <= j; ma++) {
                for (int c = 0; c < 3; c++) {
                    if (mapar == 1) {
                        du[6 * jjup + c] = du[6 * jju + c];
                        du[6 * jjup + 3 + c] = -du[6 * jju + 3 + c];
                    } else {
                        du[6 * jjup + c] = -du[6 * jju + c];
                        du[6 * jjup + 3 + c] = du[6 * jju + 3 + c];
                    }
                }
                mapar = -mapar;
                jju++;
                jjup--;
            }
            mbpar = -mbpar;
        }
    }
    double sf = sfac_of(s, r, rc) * w;
    double dsf = dsfac_of(s, r, rc) * w;
    double uv[3] = {ux, uy, uz};
    for (int j = 0; j <= s.twojmax; j++) {
        int jju = s.idxu_block[j];
        for (int mb = 0; 2 * mb <= j; mb++) {
            for (int ma = 0; ma <= j; ma++) {
                double dr = dsf * u[2 * jju], di = dsf * u[2 * jju + 1];
                double* t = du + 6 * jju;
                for (int c = 0; c < 3; c++) {
                    t[c] = dr * uv[c] + sf * t[c];
                    t[3 + c] = di * uv[c] + sf * t[3 + c];
                }
                jju++;
            }
        }
    }
}

extern "C" __global__ void snap_deidrj(int n, const double* x, const int* type, const int* start, const int* nbr, const double* shift,
                                       const int* tab, const double* consts, int twojmax, int idxb_max, int idxz_max, int nelem, int flags,
                                       double rfac0, double rmin0, double rcutfac, const double* radius, const double* weight,
                                       const double* ylist, int y_stride, double* scratch, int scratch_stride, double* dedr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Sna s = sna_of(tab, consts, twojmax, idxb_max, idxz_max, nelem, flags, rfac0, rmin0);
    const double* y = ylist + (long) i * y_stride;
    double* u = scratch + (long) i * scratch_stride;
    double* du = u + 2 * s.idxu_max;
    int ti = type[i];
    double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    for (int q = start[i]; q < start[i + 1]; q++) {
        int j = nbr[q];
        double dx = x[3 * j] + shift[3 * q] - xi;
        double dy = x[3 * j + 1] + shift[3 * q + 1] - yi;
        double dz = x[3 * j + 2] + shift[3 * q + 2] - zi;
        int tj = type[j];
        double rc;
        double rsq = dx * dx + dy * dy + dz * dz;
        if (!pair_inside(s, radius, rcutfac, ti, tj, rsq, &rc)) {
            dedr[3 * q] = dedr[3 * q + 1] = dedr[3 * q + 2] = 0.0;
            continue;
        }
        double r = sqrt(rsq);
        double theta0u = (r - rmin0) * rfac0 * SNAP_PI / (rc - rmin0);
        uarray(s, dx, dy, dz, r / tan(theta0u), r, u);
        double rscale0 = rfac0 * SNAP_PI / (rc - rmin0);
        double theta0 = (r - rmin0) * rscale0;
        double cs = cos(theta0), sn = sin(theta0);
        double z0 = r * cs / sn;
        double dz0dr = z0 / r - (r * rscale0) * (rsq + z0 * z0) / rsq;
        duarray(s, dx, dy, dz, z0, r, dz0dr, weight[tj], rc, u, du);
        const double* yb = y + 2 * ((flags & SNAP_CHEM) ? tj : 0) * s.idxu_max;
        double d[3] = {0, 0, 0};
        for (int jj = 0; jj <= twojmax; jj++) {
            int jju = s.idxu_block[jj];
            for (int mb = 0; 2 * mb < jj; mb++) {
                for (int ma = 0; ma <= jj; ma++) {
                    double yr = yb[2 * jju], yim = yb[2 * jju + 1];
                    for (int c = 0; c < 3; c++) d[c] += du[6 * jju + c] * yr + du[6 * jju + 3 + c] * yim;
                    jju++;
                }
            }
            if (jj % 2 == 0) {
                int mb = jj / 2;
                for (int ma = 0; ma < mb; ma++) {
                    double yr = yb[2 * jju], yim = yb[2 * jju + 1];
                    for (int c = 0; c < 3; c++) d[c] += du[6 * jju + c] * yr + du[6 * jju + 3 + c] * yim;
                    jju++;
                }
                double yr = yb[2 * jju], yim = yb[2 * jju + 1];
                for (int c = 0; c < 3; c++) d[c] += (du[6 * jju + c] * yr + du[6 * jju + 3 + c] * yim) * 0.5;
            }
        }
        for (int c = 0; c < 3; c++) dedr[3 * q + c] = 2.0 * d[c];
    }
}

extern "C" __global__ void snap_force(int n, const double* x, const int* start, const int* nbr, const double* shift, const int* rev,
                                      const double* dedr, double* f, double* virial) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    double fi[3] = {0, 0, 0};
    double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int q = start[i]; q < start[i + 1]; q++) {
        int j = nbr[q];
        double d[3] = {-(x[3 * j] + shift[3 * q] - xi), -(x[3 * j + 1] + shift[3 * q + 1] - yi), -(x[3 * j + 2] + shift[3 * q + 2] - zi)};
        const double* g = dedr + 3 * q;
        const double* h = dedr + 3 * rev[q];
        for (int c = 0; c < 3; c++) fi[c] += g[c] - h[c];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) w[3 * a + b] += d[a] * g[b];
        }
    }
    for (int c = 0; c < 3; c++) f[3 * i + c] = fi[c];
    for (int c = 0; c < 9; c++) virial[9 * i + c] = w[c];
}

// RelaxColumns' layout (relax.cu has the same): int columns START 0, COUNT 1; double columns
// VIRIAL 23 … 31 (row-major xx xy xz yx yy yz zx zy zz), each of `cap` rows.
#define SNAP_COL_START 0
#define SNAP_COL_COUNT 1
#define SNAP_COL_VIRIAL 23

extern "C" __global__ void snap_virial(int systems, const int* ints, int cap, const double* virial, double* doubles) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= systems) return;
    int first = ints[SNAP_COL_START * cap + k];
    int count = ints[SNAP_COL_COUNT * cap + k];
    double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = first; i < first + count; i++) {
        for (int c = 0; c < 9; c++) w[c] += virial[9 * i + c];
    }
    for (int c = 0; c < 9; c++) doubles[(SNAP_COL_VIRIAL + c) * cap + k] = w[c];
}

// ZBL (dev.penstock.atoms.potential.Zbl, LAMMPS's pair_style zbl) added to an atom's energy,
// force and virial, over the same lists: for a sum such as "zbl(...) + snap(...)" (LAMMPS's
// hybrid/overlay), run after snap_force. coef: 10 per pair of model types (ti * ntypes + tj): d_k/a
// (4), Z_i Z_j e^2/(4 pi eps0), swa, swb, swa/3, swb/4, swc. Each pair's energy and virial are
// halved between its two atoms (both rows hold it).
__device__ __forceinline__ double zbl_screening(const double* c, double r, int power) {
    const double coefficient[4] = {0.02817, 0.28022, 0.50986, 0.18175};
    double sum = 0;
    for (int k = 0; k < 4; k++) {
        double term = coefficient[k] * exp(-c[k] * r);
        for (int q = 0; q < power; q++) term *= c[k];
        sum += term;
    }
    return sum;
}

extern "C" __global__ void zbl_add(int n, const double* x, const int* type, const int* start, const int* nbr, const double* shift,
                                   const double* coef, int ntypes, double inner, double outer, double* energy, double* f, double* virial) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    int ti = type[i];
    double outer2 = outer * outer, inner2 = inner * inner;
    double e = 0, fi[3] = {0, 0, 0}, w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int q = start[i]; q < start[i + 1]; q++) {
        int j = nbr[q];
        double d[3] = {xi - (x[3 * j] + shift[3 * q]), yi - (x[3 * j + 1] + shift[3 * q + 1]), zi - (x[3 * j + 2] + shift[3 * q + 2])};
        double rsq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (!(rsq < outer2)) {
            if (rsq != rsq) e = rsq;  // NaN: reported as non-finite
            continue;
        }
        const double* c = coef + 10 * (ti * ntypes + type[j]);
        double rr = sqrt(rsq);
        double rinv = 1.0 / rr;
        double fpair = c[4] * (-zbl_screening(c, rr, 1) - zbl_screening(c, rr, 0) * rinv) * rinv;
        double t = rr - inner;
        if (rsq > inner2) fpair += t * t * (c[5] + c[6] * t);
        fpair *= -1.0 / rr;
        double evdwl = c[4] * zbl_screening(c, rr, 0) / rr + c[9];
        if (rsq > inner2) evdwl += t * t * t * (c[7] + c[8] * t);
        e += 0.5 * evdwl;
        for (int a = 0; a < 3; a++) {
            fi[a] += d[a] * fpair;
            for (int b = 0; b < 3; b++) w[3 * a + b] += 0.5 * d[a] * d[b] * fpair;
        }
    }
    energy[i] += e;
    for (int a = 0; a < 3; a++) f[3 * i + a] += fi[a];
    for (int c = 0; c < 9; c++) virial[9 * i + c] += w[c];
}
