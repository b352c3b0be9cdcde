/// NumPy `.npy` files: memory-mapped reading and streaming writing (format versions 1 and 2).
package dev.penstock.formats.npy;
