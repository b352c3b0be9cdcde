package dev.penstock.cli.readme;

// README:encode begin
import dev.penstock.memory.Block;
import dev.penstock.quantum.Encoder;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.States;
import java.util.Arrays;

public class EncodeExample {
    public static void main(String[] args) {
        double[][] rows = {{3, 4, 0, 0}, {1, 1, 1, 1}};
        try (States states = Encoder.of(Encoding.AMPLITUDE, 2).encode(rows)) { // 2 qubits: 4 amplitudes a state
            double[] first = states.real(0);     // x / |x| ≈ [0.6, 0.8, 0, 0]; qubit 0 is the index's lowest bit
            Block all = states.block();          // [2, 4] complex128, off-heap, (re, im) interleaved: no copy
            System.out.println(Arrays.toString(first) + " " + Arrays.toString(all.shape()));
        }
    }
}
// README:encode end
