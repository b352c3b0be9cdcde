package dev.penstock.atoms.potential;

import dev.penstock.atoms.io.Elements;
import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Path;

/// The elements a potential file describes, and each atom's element among them (by atomic
/// number): shared by the models read from LAMMPS files.
///
/// @param file     the potential file (named in refusals)
/// @param symbols  the elements, in the file's order
/// @param numbers  their atomic numbers
record Species(Path file, String[] symbols, int[] numbers) {
    /// The species of `symbols` (numbers from their symbols).
    static Species of(Path file, String[] symbols) {
        int[] z = new int[symbols.length];
        for (int e = 0; e < symbols.length; e++) {
            z[e] = Elements.number(symbols[e]);
        }
        return new Species(file, symbols, z);
    }

    /// Why `s` cannot be evaluated (an atom of an element the file lacks), or null.
    String refusal(AtomicSystem s) {
        int[] z = s.numbers();
        for (int i = 0; i < z.length; i++) {
            if (indexOf(z[i]) < 0) {
                String symbol = z[i] >= 1 && z[i] <= Elements.LAST ? Elements.symbol(z[i]) : "atomic number " + z[i];
                return "system " + s.id() + ": atom " + i + " is " + symbol + ", which " + file.getFileName() + " does not describe (it has "
                        + String.join(", ", symbols) + ")";
            }
        }
        return null;
    }

    /// Each atom's element index; fails, with the refusal, for an element the file lacks.
    int[] types(AtomicSystem s) {
        int[] z = s.numbers();
        int[] type = new int[z.length];
        for (int i = 0; i < z.length; i++) {
            type[i] = indexOf(z[i]);
            if (type[i] < 0) {
                throw new IllegalArgumentException(refusal(s));
            }
        }
        return type;
    }

    private int indexOf(int z) {
        for (int e = 0; e < numbers.length; e++) {
            if (numbers[e] == z) {
                return e;
            }
        }
        return -1;
    }
}
