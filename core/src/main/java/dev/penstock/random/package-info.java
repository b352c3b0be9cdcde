/// Reproducible, order-independent randomness: keyed seed derivation and per-sample generators.
package dev.penstock.random;
