package dev.penstock.atoms.optimize;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;

/// The per-system reference the tests check the device stages against: one system relaxed alone
/// by an optimiser object, ASE's `Optimizer.irun` loop — evaluate, check convergence, step, repeat
/// — with the step budget, and a diagnosis naming the system on non-finite forces. Main code runs
/// FIRE only as the device stages' batch kernels (`CpuRelaxKernels`), over the same `Fire` and
/// `Fire2` step arithmetic.
public final class Relaxation {
    private Relaxation() {
    }

    /// The outcome of a relaxation.
    ///
    /// @param steps      optimiser steps taken (ASE's `nsteps`)
    /// @param converged  whether the rule said converged
    /// @param energy     energy at the final positions
    /// @param maxForce   max |F_i| at the final positions
    public record Result(int steps, boolean converged, double energy, double maxForce) {
    }

    /// `fire` as a per-system optimiser: its array step on the system's arrays, its state saved
    /// and restored through its accessors.
    public static Optimizer of(Fire fire) {
        return new Optimizer() {
            @Override
            public void step(AtomicSystem s) {
                fire.step(s.forces(), s.velocities(), s.positions(), s.masses(), 3 * s.atoms());
            }

            @Override
            public void save(java.io.DataOutput out) throws java.io.IOException {
                out.writeDouble(fire.dt());
                out.writeDouble(fire.alpha());
                out.writeInt(fire.n());
                out.writeBoolean(fire.started());
            }

            @Override
            public void restore(java.io.DataInput in) throws java.io.IOException {
                fire.state(in.readDouble(), in.readDouble(), in.readInt(), in.readBoolean());
            }
        };
    }

    /// `fire2` as a per-system optimiser, holding the last step taken and the steps counted.
    public static Optimizer of(Fire2 fire2) {
        return new Optimizer() {
            private double[] last = new double[0];
            private int index;

            @Override
            public void step(AtomicSystem s) {
                if (index == 0) {
                    last = new double[3 * s.atoms()];
                }
                fire2.step(s.forces(), s.velocities(), s.positions(), s.masses(), 3 * s.atoms(), last);
                index++;
            }

            @Override
            public void save(java.io.DataOutput out) throws java.io.IOException {
                out.writeDouble(fire2.dt());
                out.writeDouble(fire2.alpha());
                out.writeInt(fire2.npos());
                out.writeInt(index);
                out.writeInt(last.length);
                for (double x : last) {
                    out.writeDouble(x);
                }
            }

            @Override
            public void restore(java.io.DataInput in) throws java.io.IOException {
                double dt = in.readDouble();
                double alpha = in.readDouble();
                int npos = in.readInt();
                index = in.readInt();
                fire2.state(dt, alpha, npos, index);
                last = new double[in.readInt()];
                for (int i = 0; i < last.length; i++) {
                    last[i] = in.readDouble();
                }
            }
        };
    }

    /// Relaxes `s` under `model` with `fire` until max |F_i| < `fmax` or `maxSteps` steps.
    public static Result relax(Fire fire, AtomicSystem s, Model model, double fmax, int maxSteps) {
        return run(of(fire), s, model, Convergence.of(fmax, maxSteps));
    }

    /// Relaxes `s` under `model` with `fire` until `rule` says so.
    public static Result relax(Fire fire, AtomicSystem s, Model model, Convergence rule) {
        return run(of(fire), s, model, rule);
    }

    /// Relaxes `s` under `model` with `fire2` until `rule` says so.
    public static Result relax(Fire2 fire2, AtomicSystem s, Model model, Convergence rule) {
        return run(of(fire2), s, model, rule);
    }

    /// The loop: `optimizer` on `s` under `model` until `rule` says so.
    public static Result run(Optimizer optimizer, AtomicSystem s, Model model, Convergence rule) {
        int taken = 0;
        model.compute(s);
        double previous = Double.NaN;
        while (true) {
            double fm = s.maxForce();
            if (!Double.isFinite(fm)) {
                throw new IllegalStateException("system " + s.id() + ": non-finite forces at step " + taken);
            }
            if (rule.converged(fm, s.energy(), previous)) {
                return new Result(taken, true, s.energy(), fm);
            }
            if (taken == rule.maxSteps()) {
                return new Result(taken, false, s.energy(), fm);
            }
            previous = s.energy();
            optimizer.step(s);
            taken++;
            model.compute(s);
        }
    }
}
