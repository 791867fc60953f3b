package org.kvflow.transport.tcp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A free port for a decode server that will be restarted on it. A port the kernel handed out
 * (port 0) lies in its ephemeral range, which outgoing connections draw their local ports from:
 * once the server closes, any client on the machine may take it and the restart fails to bind.
 * A port below that range is never handed out, so it stays free between the close and the
 * restart.
 */
public final class RestartablePort {
    /** The lowest port tried: above the well-known and most registered service ports. */
    static final int LOWEST = 10_000;
    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int TRIES = 200;

    private RestartablePort() {
    }

    /**
     * A port on the host's address that is free now and below the ephemeral range.
     *
     * @param host the address the server will bind
     * @return the port
     * @throws IllegalArgumentException if the host does not resolve
     * @throws IllegalStateException    if the ephemeral range leaves no room below it, or no port tried was free
     */
    public static int free(String host) {
        return free(host, new SplittableRandom(), ephemeralFirst());
    }

    /** {@link #free(String)} drawing candidates from {@code random}, below {@code first}. */
    static int free(String host, SplittableRandom random, int first) {
        if (first <= LOWEST + 1) {
            throw new IllegalStateException("no port below the ephemeral range (it starts at " + first + ") to restart a server on");
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("no port for a server on " + host + ": " + e.getMessage(), e);
        }
        for (int i = 0; i < TRIES; i++) {
            int port = random.nextInt(LOWEST, first);
            if (bindable(address, port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port on " + host + " between " + LOWEST + " and " + first + " after " + TRIES + " tries");
    }

    /** The first port of the kernel's ephemeral range: read on Linux, else the IANA range's start. */
    static int ephemeralFirst() {
        try {
            return Integer.parseInt(Files.readAllLines(RANGE).get(0).trim().split("\\s+")[0]); // readString may stop short on procfs
        } catch (IOException | RuntimeException notLinux) {
            return 49_152;
        }
    }

    private static boolean bindable(InetAddress address, int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(address, port));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
