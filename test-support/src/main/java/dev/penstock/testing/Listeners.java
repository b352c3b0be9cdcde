package dev.penstock.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/// The TCP sockets this JVM listens on, from `/proc/self/net/tcp` and `tcp6` (Linux), matched
/// to this process by the socket inodes of `/proc/self/fd`.
public final class Listeners {
    private Listeners() {
    }

    /// A listening socket: its address and port.
    public record Listener(InetAddress address, int port) {
        /// Whether only this machine can reach it (127.0.0.0/8, ::1, or ::ffff:127.x.y.z).
        public boolean loopback() {
            byte[] b = address.getAddress();
            if (address.isLoopbackAddress()) {
                return true;
            }
            // an IPv4-mapped loopback address (::ffff:127.x.y.z)
            return b.length == 16 && b[10] == (byte) 0xff && b[11] == (byte) 0xff && b[12] == 127;
        }

        @Override
        public String toString() {
            return address.getHostAddress() + ":" + port;
        }
    }

    /// Whether this machine exposes `/proc/self/net/tcp` (Linux).
    public static boolean available() {
        return Files.isReadable(Path.of("/proc/self/net/tcp"));
    }

    /// Every socket this process is listening on now.
    public static List<Listener> ofThisProcess() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor went away while listed
                }
            }
        }
        List<Listener> out = new ArrayList<>();
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            Path p = Path.of(table);
            if (!Files.isReadable(p)) {
                continue;
            }
            List<String> lines = Files.readAllLines(p); // read once: sockets come and go
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 10 || !f[3].equals("0A") || !inodes.contains(f[9])) {
                    continue; // 0A: LISTEN
                }
                String[] hostPort = f[1].split(":");
                out.add(new Listener(decode(hostPort[0]), Integer.parseInt(hostPort[1], 16)));
            }
        }
        return out;
    }

    /// The non-loopback listeners among those of this process now.
    public static List<Listener> beyondLoopback() throws IOException {
        return ofThisProcess().stream().filter(l -> !l.loopback()).toList();
    }

    /// `/proc/net/tcp` addresses: 32-bit words in host (little-endian) order, 1 or 4 of them.
    private static InetAddress decode(String hex) throws IOException {
        byte[] b = new byte[hex.length() / 2];
        for (int w = 0; w < b.length / 4; w++) {
            for (int k = 0; k < 4; k++) {
                int at = w * 8 + (3 - k) * 2;
                b[w * 4 + k] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        return InetAddress.getByAddress(b);
    }
}
