/// Neighbour lists: cell lists with a skin and a rebuild rule that never misses a pair.
package dev.penstock.atoms.neighbor;
