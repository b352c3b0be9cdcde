package dev.penstock.atoms.integrate;

import dev.penstock.atoms.device.PortableMath;

/// The Martyna–Tobias–Klein barostat as LAMMPS's `fix npt` / `fix nph` integrates it (`FixNH`:
/// `nhc_press_integrate`, `nh_omega_dot`, `nh_v_press`, `remap`, `couple`; MTK terms on, drag 0,
/// `dilate all`, `tloop 1`, `ploop 1`, no deviatoric stress): the cell's velocity gradient ω̇ (1, 3
/// or 6 components: `ISO`, `ANISO`, `TRI`), its own Nosé–Hoover chain of `pchain` thermostats, and
/// the atoms' velocities and positions scaled with the cell. Quantities in Penstock's units (eV,
/// Å, amu, τ; pressures eV/Å³, so LAMMPS's `nktv2p` is 1): `kT` the target temperature times
/// k_B (`nph`: the temperature the system starts with), `p` the target pressure, `pfreq` 1/pdamp.
///
/// The cell is LAMMPS's: rows a = (xprd, 0, 0), b = (xy, yprd, 0), c = (xz, yz, zprd), held here
/// as `h` = [xprd, yprd, zprd, yz, xz, xy] with the box's lower corner `lo` (the fixed point of
/// the dilation is the first cell's centre). `ISO` also takes a cell of any orientation: it
/// scales all nine components alike.
///
/// A system's state (`STATE` doubles, `state[…]` below): ω̇ (6), the barostat chain's η_p (5),
/// η̇_p (6: the last always 0) and η̈_p (5), the volume at the start V₀, kT, the lower corner (3)
/// and the fixed point (3). Its exponentials are `PortableMath.exp`'s, as `NoseHoover`'s.
public final class Mtk {
    /// one barostat degree of freedom: the three diagonal components coupled (`iso`)
    public static final int ISO = 0;
    /// three: the diagonal components each on its own (`aniso`)
    public static final int ANISO = 1;
    /// six: the diagonal and the tilts (`tri`)
    public static final int TRI = 2;
    /// The longest barostat chain the state holds.
    public static final int MAX_CHAIN = 5;
    /// state: ω̇, 6 entries (xx yy zz yz xz xy, LAMMPS's Voigt order)
    public static final int OMEGA_DOT = 0;
    /// state: η_p
    public static final int ETAP = 6;
    /// state: η̇_p (MAX_CHAIN + 1 entries, the last 0)
    public static final int ETAP_DOT = ETAP + MAX_CHAIN;
    /// state: η̈_p
    public static final int ETAP_DOTDOT = ETAP_DOT + MAX_CHAIN + 1;
    /// state: V₀
    public static final int VOL0 = ETAP_DOTDOT + MAX_CHAIN;
    /// state: kT of the barostat's masses
    public static final int KT = VOL0 + 1;
    /// state: the cell's lower corner (3)
    public static final int LO = KT + 1;
    /// state: the dilation's fixed point (3)
    public static final int FIXED = LO + 3;
    /// doubles of state per system
    public static final int STATE = FIXED + 3;

    private Mtk() {
    }

    /// The barostat's settings: `couple` (`ISO`, `ANISO`, `TRI`), target pressure `p`, 1/pdamp
    /// `pfreq`, `pchain` chain thermostats.
    ///
    /// @param couple the degrees of freedom
    /// @param p      the target pressure, eV/Å³
    /// @param pfreq  1/pdamp, 1/τ
    /// @param pchain the barostat's chain length (0 … `MAX_CHAIN`)
    public record Settings(int couple, double p, double pfreq, int pchain) {
        /// Validates.
        public Settings {
            if (couple < ISO || couple > TRI || !Double.isFinite(p) || !(pfreq > 0) || Double.isInfinite(pfreq) || pchain < 0
                    || pchain > MAX_CHAIN) {
                throw new IllegalArgumentException("barostat: couple " + couple + ", p " + p + ", pfreq " + pfreq + ", pchain " + pchain);
            }
        }

        /// Whether component `i` of ω̇ (0…5) is barostatted.
        boolean on(int i) {
            return i < 3 || couple == TRI;
        }

        /// The barostatted dimensions of the diagonal (LAMMPS's `pdim`).
        int pdim() {
            return 3;
        }
    }

    /// Why `cell` (9 components, rows a, b, c; `periodic` each axis) cannot be barostatted by
    /// `couple`, or null: every axis periodic, and for `ANISO` and `TRI` LAMMPS's orientation.
    public static String refusal(double[] cell, boolean[] periodic, int couple) {
        if (!periodic[0] || !periodic[1] || !periodic[2]) {
            return "is not periodic along every axis: a barostat changes the volume of a periodic cell";
        }
        if (couple != ISO && !(cell[1] == 0 && cell[2] == 0 && cell[5] == 0 && cell[0] > 0 && cell[4] > 0 && cell[8] > 0)) {
            return "has a cell not in LAMMPS's orientation (a along +x, b in the xy plane, c with z > 0), which couple=aniso and "
                    + "couple=tri scale axis by axis; rotate it (ase.io.lammpsdata does) or use couple=iso";
        }
        return null;
    }

    /// The barostat at rest before the first step (LAMMPS's `setup`) for a system of `atoms`
    /// atoms in `cell`: ω̇ = 0, the chain at rest, V₀ the volume now, `kT` the masses' temperature.
    public static void start(double[] state, double[] cell, double kT, Settings s) {
        java.util.Arrays.fill(state, 0, STATE, 0);
        state[VOL0] = volume(cell);
        state[KT] = kT;
        state[FIXED] = 0.5 * cell[0];
        state[FIXED + 1] = 0.5 * cell[4];
        state[FIXED + 2] = 0.5 * cell[8];
        double m = kT / (s.pfreq() * s.pfreq());
        for (int k = 1; k < s.pchain(); k++) {
            state[ETAP_DOTDOT + k] = (0 - kT) / m;
        }
    }

    /// |det| of the cell (LAMMPS: xprd·yprd·zprd).
    public static double volume(double[] cell) {
        if (cell[1] == 0 && cell[2] == 0 && cell[5] == 0) {
            return cell[0] * cell[4] * cell[8];
        }
        return Math.abs(cell[0] * (cell[4] * cell[8] - cell[5] * cell[7]) - cell[1] * (cell[3] * cell[8] - cell[5] * cell[6])
                + cell[2] * (cell[3] * cell[7] - cell[4] * cell[6]));
    }

    private static double omegaMass(int atoms, double kT, Settings s) {
        return (atoms + 1) * kT / (s.pfreq() * s.pfreq());
    }

    /// A half step of the barostat's chain (`nhc_press_integrate`, one loop), scaling ω̇.
    public static void chain(double[] state, int atoms, Settings s, double dt) {
        int pchain = s.pchain();
        if (pchain == 0) {
            return;
        }
        double kT = state[KT];
        double dthalf = 0.5 * dt;
        double dt4 = 0.25 * dt;
        double dt8 = 0.125 * dt;
        double wm = omegaMass(atoms, kT, s);
        double em = kT / (s.pfreq() * s.pfreq());
        double ke = 0;
        int pdof = 0;
        for (int i = 0; i < 6; i++) {
            if (s.on(i)) {
                ke += wm * state[OMEGA_DOT + i] * state[OMEGA_DOT + i];
                pdof++;
            }
        }
        double lkt = s.couple() == ISO ? kT : pdof * kT;
        state[ETAP_DOTDOT] = (ke - lkt) / em;
        for (int k = pchain - 1; k > 0; k--) {
            double expfac = PortableMath.exp(-dt8 * state[ETAP_DOT + k + 1]);
            state[ETAP_DOT + k] *= expfac;
            state[ETAP_DOT + k] += state[ETAP_DOTDOT + k] * dt4;
            state[ETAP_DOT + k] *= expfac;
        }
        double expfac = PortableMath.exp(-dt8 * state[ETAP_DOT + 1]);
        state[ETAP_DOT] *= expfac;
        state[ETAP_DOT] += state[ETAP_DOTDOT] * dt4;
        state[ETAP_DOT] *= expfac;
        for (int k = 0; k < pchain; k++) {
            state[ETAP + k] += dthalf * state[ETAP_DOT + k];
        }
        double factor = PortableMath.exp(-dthalf * state[ETAP_DOT]);
        ke = 0;
        for (int i = 0; i < 6; i++) {
            if (s.on(i)) {
                state[OMEGA_DOT + i] *= factor;
            }
        }
        for (int i = 0; i < 6; i++) {
            if (s.on(i)) {
                ke += wm * state[OMEGA_DOT + i] * state[OMEGA_DOT + i];
            }
        }
        state[ETAP_DOTDOT] = (ke - lkt) / em;
        state[ETAP_DOT] *= expfac;
        state[ETAP_DOT] += state[ETAP_DOTDOT] * dt4;
        state[ETAP_DOT] *= expfac;
        for (int k = 1; k < pchain; k++) {
            expfac = PortableMath.exp(-dt8 * state[ETAP_DOT + k + 1]);
            state[ETAP_DOT + k] *= expfac;
            state[ETAP_DOTDOT + k] = (em * state[ETAP_DOT + k - 1] * state[ETAP_DOT + k - 1] - kT) / em;
            state[ETAP_DOT + k] += state[ETAP_DOTDOT + k] * dt4;
            state[ETAP_DOT + k] *= expfac;
        }
    }

    /// Σ m v_a v_b of `n` atoms: xx yy zz xy xz yz (LAMMPS's `compute temp` vector, ×dof·k_B/…).
    public static void kineticTensor(double[] v, double[] m, int n, double[] out) {
        java.util.Arrays.fill(out, 0, 6, 0);
        for (int i = 0; i < n; i++) {
            double vx = v[3 * i];
            double vy = v[3 * i + 1];
            double vz = v[3 * i + 2];
            out[0] += m[i] * vx * vx;
            out[1] += m[i] * vy * vy;
            out[2] += m[i] * vz * vz;
            out[3] += m[i] * vx * vy;
            out[4] += m[i] * vx * vz;
            out[5] += m[i] * vy * vz;
        }
    }

    /// The pressure the barostat is driven by (`couple`): its six components in LAMMPS's Voigt
    /// order (xx yy zz yz xz xy) from the kinetic tensor `kin` (or, `ISO`, Σmv² `mv2`), the
    /// virial `w` (9, row-major) and the volume.
    static void pressure(double[] kin, double mv2, double[] w, double volume, Settings s, double[] out) {
        if (s.couple() == ISO) {
            double p = (mv2 + w[0] + w[4] + w[8]) / 3.0 * (1 / volume);
            out[0] = p;
            out[1] = p;
            out[2] = p;
            return;
        }
        double inv = 1 / volume;
        out[0] = (kin[0] + w[0]) * inv;
        out[1] = (kin[1] + w[4]) * inv;
        out[2] = (kin[2] + w[8]) * inv;
        if (s.couple() == TRI) {
            out[3] = (kin[5] + w[5]) * inv; // yz
            out[4] = (kin[4] + w[2]) * inv; // xz
            out[5] = (kin[3] + w[1]) * inv; // xy
        }
    }

    /// ω̇'s half step (`nh_omega_dot`) under pressure `pcur` (Voigt, as `pressure`), the MTK term
    /// from Σmv² `mv2` (`ISO`) or the kinetic tensor `kin`.
    static void omegaDot(double[] state, double[] pcur, double[] kin, double mv2, double volume, int atoms, Settings s, double dt) {
        double dthalf = 0.5 * dt;
        double wm = omegaMass(atoms, state[KT], s);
        double term1 = s.couple() == ISO ? mv2 : kin[0] + kin[1] + kin[2];
        term1 /= s.pdim() * atoms;
        for (int i = 0; i < 3; i++) {
            double f = (pcur[i] - s.p()) * volume / wm + term1 / wm;
            state[OMEGA_DOT + i] += f * dthalf;
        }
        if (s.couple() == TRI) {
            for (int i = 3; i < 6; i++) {
                double f = pcur[i] * volume / wm;
                state[OMEGA_DOT + i] += f * dthalf;
            }
        }
    }

    /// LAMMPS's `mtk_term2`: Σ ω̇_diag / (pdim·N).
    private static double term2(double[] state, int atoms, Settings s) {
        double t = state[OMEGA_DOT] + state[OMEGA_DOT + 1] + state[OMEGA_DOT + 2];
        return t / (s.pdim() * atoms);
    }

    /// The barostat's half-step scaling of the velocities (`nh_v_press`).
    static void scaleVelocities(double[] v, int n, double[] state, Settings s, double dt) {
        double dt4 = 0.25 * dt;
        double dthalf = 0.5 * dt;
        double t2 = term2(state, n, s);
        double f0 = PortableMath.exp(-dt4 * (state[OMEGA_DOT] + t2));
        double f1 = PortableMath.exp(-dt4 * (state[OMEGA_DOT + 1] + t2));
        double f2 = PortableMath.exp(-dt4 * (state[OMEGA_DOT + 2] + t2));
        boolean tri = s.couple() == TRI;
        double o3 = state[OMEGA_DOT + 3];
        double o4 = state[OMEGA_DOT + 4];
        double o5 = state[OMEGA_DOT + 5];
        for (int i = 0; i < n; i++) {
            v[3 * i] *= f0;
            v[3 * i + 1] *= f1;
            v[3 * i + 2] *= f2;
            if (tri) {
                v[3 * i] += -dthalf * (v[3 * i + 1] * o5 + v[3 * i + 2] * o4);
                v[3 * i + 1] += -dthalf * v[3 * i + 2] * o3;
            }
            v[3 * i] *= f0;
            v[3 * i + 1] *= f1;
            v[3 * i + 2] *= f2;
        }
    }

    /// The cell and the atoms' positions `r` over half a step (`remap`: h' from ω̇, each atom's
    /// fractional coordinates kept). `cell` (9, rows) is updated in place.
    static void remap(double[] r, int n, double[] cell, double[] state, Settings s, double dt) {
        double dto = 0.5 * dt;
        double[] lo = {state[LO], state[LO + 1], state[LO + 2]};
        double[] old = cell.clone();
        if (!(cell[1] == 0 && cell[2] == 0 && cell[5] == 0)) { // ISO on a cell of any orientation: all of it scaled
            double e = PortableMath.exp(dto * state[OMEGA_DOT]);
            for (int d = 0; d < 3; d++) {
                lo[d] = (lo[d] - state[FIXED + d]) * e + state[FIXED + d];
            }
            for (int x = 0; x < 9; x++) {
                cell[x] *= e;
            }
        } else {
            double[] h = {cell[0], cell[4], cell[8], cell[7], cell[6], cell[3]};
            boolean tri = s.couple() == TRI;
            boolean scaleXy = !tri && h[5] != 0;
            boolean scaleXz = !tri && h[4] != 0;
            boolean scaleYz = !tri && h[3] != 0;
            double[] od = new double[6];
            System.arraycopy(state, OMEGA_DOT, od, 0, 6);
            if (tri) {
                tilts(h, od, dto);
            }
            double[] length = new double[3]; // the new edges, taken only after the tilts' second half (as LAMMPS's h)
            for (int d = 0; d < 3; d++) {
                double e = PortableMath.exp(dto * od[d]);
                double hi = lo[d] + h[d];
                lo[d] = (lo[d] - state[FIXED + d]) * e + state[FIXED + d];
                hi = (hi - state[FIXED + d]) * e + state[FIXED + d];
                length[d] = hi - lo[d];
                if (d == 1 && scaleXy) {
                    h[5] *= e;
                }
                if (d == 2) {
                    if (scaleXz) {
                        h[4] *= e;
                    }
                    if (scaleYz) {
                        h[3] *= e;
                    }
                }
            }
            if (tri) {
                tilts(h, od, dto); // with the edges of before the dilation: LAMMPS sets h[0…2] from the box afterwards
            }
            System.arraycopy(length, 0, h, 0, 3);
            cell[0] = h[0];
            cell[3] = h[5];
            cell[4] = h[1];
            cell[6] = h[4];
            cell[7] = h[3];
            cell[8] = h[2];
        }
        // each atom: its fractional coordinates in the old cell, x = λ·H' + lo'
        double[] inv = inverse(old);
        for (int i = 0; i < n; i++) {
            double dx = r[3 * i] - state[LO];
            double dy = r[3 * i + 1] - state[LO + 1];
            double dz = r[3 * i + 2] - state[LO + 2];
            double l0 = dx * inv[0] + dy * inv[3] + dz * inv[6];
            double l1 = dx * inv[1] + dy * inv[4] + dz * inv[7];
            double l2 = dx * inv[2] + dy * inv[5] + dz * inv[8];
            r[3 * i] = l0 * cell[0] + l1 * cell[3] + l2 * cell[6] + lo[0];
            r[3 * i + 1] = l0 * cell[1] + l1 * cell[4] + l2 * cell[7] + lo[1];
            r[3 * i + 2] = l0 * cell[2] + l1 * cell[5] + l2 * cell[8] + lo[2];
        }
        state[LO] = lo[0];
        state[LO + 1] = lo[1];
        state[LO + 2] = lo[2];
    }

    /// One half of `remap`'s tilt update (`TRI`): xz, yz, xy, xz, in LAMMPS's order.
    private static void tilts(double[] h, double[] od, double dto) {
        double dto2 = dto / 2.0;
        double dto4 = dto / 4.0;
        double dto8 = dto / 8.0;
        double e = PortableMath.exp(dto8 * od[0]);
        h[4] *= e;
        h[4] += dto4 * (od[5] * h[3] + od[4] * h[2]);
        h[4] *= e;
        e = PortableMath.exp(dto4 * od[1]);
        h[3] *= e;
        h[3] += dto2 * (od[3] * h[2]);
        h[3] *= e;
        e = PortableMath.exp(dto4 * od[0]);
        h[5] *= e;
        h[5] += dto2 * (od[5] * h[1]);
        h[5] *= e;
        e = PortableMath.exp(dto8 * od[0]);
        h[4] *= e;
        h[4] += dto4 * (od[5] * h[3] + od[4] * h[2]);
        h[4] *= e;
    }

    /// The inverse of a cell (rows): λ = x·inv, `inv` row-major. LAMMPS's `h_inv` for its
    /// orientation (upper triangular in its h), a general 3×3 inverse otherwise.
    static double[] inverse(double[] c) {
        double[] inv = new double[9];
        if (c[1] == 0 && c[2] == 0 && c[5] == 0) {
            double h0 = c[0];
            double h1 = c[4];
            double h2 = c[8];
            double h3 = c[7];
            double h4 = c[6];
            double h5 = c[3];
            // LAMMPS: λ0 = hi0·dx + hi5·dy + hi4·dz, λ1 = hi1·dy + hi3·dz, λ2 = hi2·dz
            inv[0] = 1.0 / h0;
            inv[4] = 1.0 / h1;
            inv[8] = 1.0 / h2;
            inv[7] = -h3 / (h1 * h2); // hi3: dz → λ1
            inv[6] = (h3 * h5 - h1 * h4) / (h0 * h1 * h2); // hi4: dz → λ0
            inv[3] = -h5 / (h0 * h1); // hi5: dy → λ0
            return inv;
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
        return inv;
    }

    /// The barostat's part of a step's first half (`initial_integrate` after the chains): with
    /// the velocities as the thermostat left them, `ke` its Σmv² (LAMMPS's `t_current`, which the
    /// MTK term of `ISO` reads; the pressure takes Σmv² afresh, as LAMMPS's compute does), the
    /// virial `w` of the last evaluation — ω̇'s half step, the velocities scaled, the half kick,
    /// the cell and atoms dilated by half a step, the drift, dilated again.
    public static void before(double[] r, double[] v, double[] f, double[] m, int n, double[] cell, double[] w, double[] state,
                              Settings s, double dt, double ke) {
        double volume = volume(cell);
        double[] kin = new double[6];
        double[] pcur = new double[6];
        double mv2 = 0;
        if (s.couple() == ISO) {
            mv2 = mv2(v, m, n);
        } else {
            kineticTensor(v, m, n, kin);
        }
        pressure(kin, mv2, w, volume, s, pcur);
        omegaDot(state, pcur, kin, ke, volume, n, s, dt);
        scaleVelocities(v, n, state, s, dt);
        VelocityVerlet.halfKick(v, f, m, n, dt);
        remap(r, n, cell, state, s, dt);
        VelocityVerlet.drift(r, v, 3 * n, dt);
        remap(r, n, cell, state, s, dt);
    }

    /// The barostat's part of a step's second half (`final_integrate` before the chains): the
    /// half kick, the velocities scaled, ω̇'s half step under the new pressure (virial `w` of this
    /// step's evaluation). Returns Σmv² after it (the thermostat's `t_current`).
    public static double after(double[] v, double[] f, double[] m, int n, double[] cell, double[] w, double[] state, Settings s,
                               double dt) {
        VelocityVerlet.halfKick(v, f, m, n, dt);
        scaleVelocities(v, n, state, s, dt);
        double mv2 = mv2(v, m, n);
        double[] kin = new double[6];
        double[] pcur = new double[6];
        if (s.couple() != ISO) {
            kineticTensor(v, m, n, kin);
        }
        double volume = volume(cell);
        pressure(kin, mv2, w, volume, s, pcur);
        omegaDot(state, pcur, kin, mv2, volume, n, s, dt);
        return mv2;
    }

    /// Σ m v² in atom order.
    public static double mv2(double[] v, double[] m, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += m[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        }
        return s;
    }

    /// The barostat's share of the conserved quantity (`FixNH::compute_scalar`): ½W·ω̇² and
    /// P·(V − V₀) over its degrees of freedom, and its chain's energy.
    public static double energy(double[] state, double[] cell, int atoms, Settings s) {
        double kT = state[KT];
        double wm = omegaMass(atoms, kT, s);
        double volume = volume(cell);
        double e = 0;
        double lkt = 0;
        for (int i = 0; i < 3; i++) {
            e += 0.5 * state[OMEGA_DOT + i] * state[OMEGA_DOT + i] * wm + s.p() * (volume - state[VOL0]) / s.pdim();
            lkt += kT;
        }
        if (s.couple() == TRI) {
            for (int i = 3; i < 6; i++) {
                e += 0.5 * state[OMEGA_DOT + i] * state[OMEGA_DOT + i] * wm;
                lkt += kT;
            }
        }
        if (s.pchain() > 0) {
            double em = kT / (s.pfreq() * s.pfreq());
            e += lkt * state[ETAP] + 0.5 * em * state[ETAP_DOT] * state[ETAP_DOT];
            for (int k = 1; k < s.pchain(); k++) {
                e += kT * state[ETAP + k] + 0.5 * em * state[ETAP_DOT + k] * state[ETAP_DOT + k];
            }
        }
        return e;
    }
}
