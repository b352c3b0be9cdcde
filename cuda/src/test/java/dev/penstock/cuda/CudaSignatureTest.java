package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Ci;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Every function `CudaDriver` binds, checked against the toolkit's `cuda.h` without a GPU: a
/// generated C++ program asks the compiler for each prototype's shape (I = 4-byte integer or
/// enum, J = 8-byte integer, P = pointer or handle) and for the name the header maps the
/// function to (`cuMemAlloc` → `cuMemAlloc_v2`), and both must equal what the Java side binds.
/// A wrong descriptor on the real driver reads garbage or crashes; here it fails with the name.
class CudaSignatureTest {
    @TempDir
    Path dir;

    static String shape(FunctionDescriptor d) {
        StringBuilder s = new StringBuilder().append(d.returnLayout().map(CudaSignatureTest::code).orElse('V')).append('(');
        d.argumentLayouts().forEach(l -> s.append(code(l)));
        return s.append(')').toString();
    }

    private static char code(MemoryLayout l) {
        return switch (l) {
            case AddressLayout a -> 'P';
            case ValueLayout.OfInt i -> 'I';
            case ValueLayout.OfLong j -> 'J';
            default -> '?';
        };
    }

    @Test
    void everyBoundFunctionHasTheShapeAndNameOfItsPrototypeInCudaH() throws Exception {
        assumeTrue(Ci.required() || Files.isExecutable(Path.of("/usr/bin/g++")), "g++ is not installed");
        assumeTrue(Ci.required() || Files.isRegularFile(HostDriver.CUDA_INCLUDE.resolve("cuda.h")), () -> HostDriver.CUDA_INCLUDE + "/cuda.h is missing");
        StringBuilder c = new StringBuilder("""
                #include <cuda.h>
                #include <cstdio>
                #include <string>
                #include <type_traits>
                #define NAME(x) STR(x)
                #define STR(x) #x
                template <typename T> char code() {
                    if constexpr (std::is_void_v<T>) return 'V';
                    else if constexpr (std::is_pointer_v<T>) return 'P';
                    else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) return sizeof(T) == 8 ? 'J' : sizeof(T) == 4 ? 'I' : '?';
                    else return '?';
                }
                template <typename R, typename... A> std::string shape(R (*)(A...)) {
                    std::string s(1, code<R>());
                    s += '(';
                    ((s += code<A>()), ...);
                    return s + ')';
                }
                int main() {
                """);
        // the unversioned name as written in the header's prototypes, which its macros map
        for (String symbol : CudaDriver.SIGNATURES.keySet()) {
            String plain = symbol.replaceAll("_v\\d$", "");
            c.append("    std::printf(\"%s %s %s\\n\", \"").append(symbol).append("\", NAME(").append(plain).append("), shape((decltype(&")
                    .append(plain).append(")) nullptr).c_str());\n");
        }
        c.append("    return 0;\n}\n");
        Path src = dir.resolve("shapes.cpp");
        Files.writeString(src, c);
        Path exe = dir.resolve("shapes");
        Process p = new ProcessBuilder("/usr/bin/g++", "-std=c++20", "-I" + HostDriver.CUDA_INCLUDE, "-o", exe.toString(), src.toString())
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(log).isZero();
        Process run = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor()).as(out).isZero();
        java.util.List<String> wrong = new java.util.ArrayList<>();
        int checked = 0;
        for (String line : out.strip().split("\n")) {
            String[] f = line.split(" "); // bound name, the header's name, the header's shape
            String shape = shape(CudaDriver.SIGNATURES.get(f[0]));
            if (!f[0].equals(f[1]) || !shape.equals(f[2])) {
                wrong.add("bound " + f[0] + " " + shape + ", cuda.h has " + f[1] + " " + f[2]);
            }
            checked++;
        }
        assertThat(checked).isEqualTo(CudaDriver.SIGNATURES.size());
        assertThat(wrong).isEmpty();
    }

    @Test
    void shapesAreReadFromTheDescriptors() {
        assertThat(shape(FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG))).isEqualTo("I(PJ)");
        assertThat(shape(CudaDriver.SIGNATURES.get("cuMemAlloc_v2"))).isEqualTo("I(PJ)");
    }
}
