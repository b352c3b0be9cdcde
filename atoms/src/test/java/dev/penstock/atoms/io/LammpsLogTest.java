package dev.penstock.atoms.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LammpsLogTest {
    @TempDir
    Path dir;

    private static final String HEAD = """
            LAMMPS (2 Aug 2023)
            thermo 1
            run 2
            Per MPI rank memory allocation (min/avg/max) = 3.1 | 3.1 | 3.1 Mbytes
               Step          Temp          TotEng
                     0   1.44             -4.6218056
                     1   1.4387           -4.6218011
            WARNING: something harmless (src/foo.cpp:1)
                     2   1.4352           -4.6217998
            """;

    @Test
    void readsTheFirstThermoTableAndTheLoopTime() throws Exception {
        Path f = dir.resolve("log.lammps");
        Files.writeString(f, HEAD + """
                Loop time of 0.0123 on 1 procs for 2 steps with 864 atoms

                   Step          Temp          TotEng
                     2   9.9               -9.9
                Loop time of 7 on 1 procs for 0 steps with 864 atoms
                """);
        LammpsLog log = LammpsLog.read(f);
        assertThat(log.columns()).containsExactly("Step", "Temp", "TotEng");
        assertThat(log.column("Step")).containsExactly(0, 1, 2);
        assertThat(log.column("TotEng")).containsExactly(-4.6218056, -4.6218011, -4.6217998);
        assertThat(log.loopSeconds()).isEqualTo(0.0123);
        assertThatThrownBy(() -> log.column("PotEng")).hasMessageContaining("PotEng").hasMessageContaining("TotEng");
    }

    @Test
    void aBadRowNamesTheFileAndLine() throws Exception {
        Path f = dir.resolve("log.lammps");
        Files.writeString(f, HEAD + "         3   1.43   oops\n");
        assertThatThrownBy(() -> LammpsLog.read(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(f + ":10").hasMessageContaining("oops");
    }

    @Test
    void anUnfinishedRunIsAnErrorNotAShortTable() throws Exception {
        Path f = dir.resolve("log.lammps");
        Files.writeString(f, HEAD);
        assertThatThrownBy(() -> LammpsLog.read(f)).hasMessageContaining(f.toString()).hasMessageContaining("Loop time");
        Files.writeString(f, "LAMMPS (2 Aug 2023)\nERROR: Unknown command\n");
        assertThatThrownBy(() -> LammpsLog.read(f)).hasMessageContaining("no thermo table");
    }
}
