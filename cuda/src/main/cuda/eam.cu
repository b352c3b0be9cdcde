// Penstock's EAM kernels: the embedded-atom method of dev.penstock.atoms.potential.Eam on a
// GPU, one thread per atom over a full neighbour list, so every sum is a per-atom gather in
// the list's order (no atomics): a system's results do not depend on the scheduling, and agree
// with the CPU path (a half list, each pair once) to rounding.
//
//   eam_density   rho_i  = sum_j rho_{j->i}(r_ij)                 (pass 1)
//   eam_embed     F_i, F'_i (linear beyond the table, as LAMMPS)  (pass 2)
//   eam_force     f_i = sum_j -(F'_i rho'_{j->i} + F'_j rho'_{i->j} + phi'(r)) (r_i - r_j) / r,
//                 e_i = F_i + 1/2 sum_j phi_ij(r),
//                 w_i = 1/2 sum_j d (x) d fpair (xx yy zz xy xz yz; d = r_i - r_j's image)  (pass 3)
//   (then relax.cu's relax_virial: per system, the sum of its atoms' w_i in atom order, into the
//    batch's VIRIAL columns)
//
// Layout: positions x[3i..3i+2]; the full list in CSR: atom i's neighbours are q in
// [start[i], start[i+1]), atom nbr[q] at x[nbr[q]] + shift[3q..3q+2] (its periodic image).
// Splines as LAMMPS prepares them (seven coefficients per grid point m at 7m, 0-2 the
// derivative's, 3-6 the value's), one table of (len + 1) * 7 doubles per function;
// rhor_of[tj * ne + ti] is the density function summed into rho_i (LAMMPS's type2rhor[jtype][itype]).
//
// Built into PTX by scripts/build-kernels.sh, as encode.cu.

#include <cuda_runtime.h>

// The grid point m and fraction p of a table lookup at p = r / delta + 1, as LAMMPS clamps them.
__device__ __forceinline__ int grid_point(double p, int last, double* frac) {
    int m = (int) p;
    m = m < last ? m : last;
    double f = p - m;
    *frac = f < 1.0 ? f : 1.0;
    return m;
}

extern "C" __global__ void eam_density(int n, const double* x, const int* type, const int* start, const int* nbr, const double* shift,
                                       const double* rhor, int rhor_stride, const int* rhor_of, int ne, double cutsq, double rdr, int nr,
                                       double* rho) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    int ti = type[i];
    double sum = 0;
    for (int q = start[i]; q < start[i + 1]; q++) {
        int j = nbr[q];
        double dx = xi - (x[3 * j] + shift[3 * q]);
        double dy = yi - (x[3 * j + 1] + shift[3 * q + 1]);
        double dz = zi - (x[3 * j + 2] + shift[3 * q + 2]);
        double rsq = dx * dx + dy * dy + dz * dz;
        if (rsq < cutsq) {
            double p;
            int m = grid_point(sqrt(rsq) * rdr + 1.0, nr - 1, &p);
            const double* c = rhor + (long) rhor_of[type[j] * ne + ti] * rhor_stride + 7 * m;
            sum += ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
        }
    }
    rho[i] = sum;
}

extern "C" __global__ void eam_embed(int n, const int* type, const double* rho, const double* frho, int frho_stride, const int* frho_of,
                                     double rdrho, int nrho, double rhomax, double* fp, double* energy) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double p = rho[i] * rdrho + 1.0;
    int m = (int) p;
    m = m < nrho - 1 ? m : nrho - 1;
    m = m > 1 ? m : 1;
    p -= m;
    p = p < 1.0 ? p : 1.0;
    const double* c = frho + (long) frho_of[type[i]] * frho_stride + 7 * m;
    double d = (c[0] * p + c[1]) * p + c[2];
    double phi = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
    if (rho[i] > rhomax) phi += d * (rho[i] - rhomax);
    fp[i] = d;
    energy[i] = phi;
}

extern "C" __global__ void eam_force(int n, const double* x, const int* type, const int* start, const int* nbr, const double* shift,
                                     const double* rhor, int rhor_stride, const int* rhor_of, const double* z2r, int z2r_stride,
                                     const int* z2r_of, int ne, double cutsq, double rdr, int nr, const double* fp, double* f,
                                     double* energy, double* virial) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    int ti = type[i];
    double fx = 0, fy = 0, fz = 0, pair = 0;
    double wxx = 0, wyy = 0, wzz = 0, wxy = 0, wxz = 0, wyz = 0;
    for (int q = start[i]; q < start[i + 1]; q++) {
        int j = nbr[q];
        double dx = xi - (x[3 * j] + shift[3 * q]);
        double dy = yi - (x[3 * j + 1] + shift[3 * q + 1]);
        double dz = zi - (x[3 * j + 2] + shift[3 * q + 2]);
        double rsq = dx * dx + dy * dy + dz * dz;
        if (rsq < cutsq) {
            int tj = type[j];
            double r = sqrt(rsq);
            double p;
            int m = grid_point(r * rdr + 1.0, nr - 1, &p);
            const double* ci = rhor + (long) rhor_of[ti * ne + tj] * rhor_stride + 7 * m;
            double rhoip = (ci[0] * p + ci[1]) * p + ci[2];
            const double* cj = rhor + (long) rhor_of[tj * ne + ti] * rhor_stride + 7 * m;
            double rhojp = (cj[0] * p + cj[1]) * p + cj[2];
            const double* cz = z2r + (long) z2r_of[ti * ne + tj] * z2r_stride + 7 * m;
            double z2p = (cz[0] * p + cz[1]) * p + cz[2];
            double z2 = ((cz[3] * p + cz[4]) * p + cz[5]) * p + cz[6];
            double recip = 1.0 / r;
            double phi = z2 * recip;
            double phip = z2p * recip - phi * recip;
            double psip = fp[i] * rhojp + fp[j] * rhoip + phip;
            double fpair = -psip * recip;
            fx += dx * fpair;
            fy += dy * fpair;
            fz += dz * fpair;
            pair += phi;
            wxx += dx * dx * fpair;
            wyy += dy * dy * fpair;
            wzz += dz * dz * fpair;
            wxy += dx * dy * fpair;
            wxz += dx * dz * fpair;
            wyz += dy * dz * fpair;
        }
    }
    f[3 * i] = fx;
    f[3 * i + 1] = fy;
    f[3 * i + 2] = fz;
    energy[i] += 0.5 * pair;
    virial[6 * i] = 0.5 * wxx;
    virial[6 * i + 1] = 0.5 * wyy;
    virial[6 * i + 2] = 0.5 * wzz;
    virial[6 * i + 3] = 0.5 * wxy;
    virial[6 * i + 4] = 0.5 * wxz;
    virial[6 * i + 5] = 0.5 * wyz;
}
