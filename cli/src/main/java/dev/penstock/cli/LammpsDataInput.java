package dev.penstock.cli;

import dev.penstock.atoms.integrate.Units;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.io.BadInputException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.ParameterException;

/// `simulate`'s LAMMPS data input (`.data`, `.lmp`): one system, its types' elements from
/// `--types`, its velocities from metal units into Penstock's.
final class LammpsDataInput {
    private LammpsDataInput() {
    }

    /// The system of LAMMPS data file `file` (id 0), its types' elements `types` (symbols, in type
    /// order) or as its Masses section says; velocities taken as metal units (Å/ps, `write_data`'s
    /// in `units metal`) into Penstock's (Å per τ).
    static AtomicSystem read(Path file, List<String> types, picocli.CommandLine line) throws java.io.IOException {
        int[] numbers = new int[types == null ? 0 : types.size()];
        for (int t = 0; t < numbers.length; t++) {
            numbers[t] = dev.penstock.atoms.io.Elements.number(types.get(t).strip());
            if (numbers[t] <= 0) {
                throw new ParameterException(line, "option '--types': '" + types.get(t) + "' (type " + (t + 1) + ") is not an element symbol");
            }
        }
        AtomicSystem s;
        try {
            s = dev.penstock.atoms.io.LammpsData.read(file, 0, numbers);
        } catch (IllegalArgumentException e) {
            if (e instanceof BadInputException) {
                throw e;
            }
            throw new ParameterException(line, "option '--types': " + e.getMessage());
        }
        double psPerTau = Units.TAU_FS / 1000;
        for (int i = 0; i < s.velocities().length; i++) {
            s.velocities()[i] *= psPerTau;
        }
        return s;
    }

}
