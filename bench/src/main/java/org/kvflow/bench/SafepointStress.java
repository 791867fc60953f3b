package org.kvflow.bench;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;

/**
 * Whether a JVM survives safepoints after a native library took its signal handlers (D51):
 * with a backend name as argument ({@code opencl}, {@code cuda}) it first selects that device
 * (which starts its native library) and prints which library now handles SIGSEGV, SIGBUS, SIGFPE
 * and SIGILL (the JVM's own report, as {@code jcmd VM.info} gives it; under signal chaining it names
 * the library's handler the JVM chains to, not the one installed); then four threads spin in
 * compiled loops while the main thread asks for 3,000 collections, each a safepoint those threads
 * reach by faulting on purpose. Prints {@code survived} and exits 0; a JVM that lost its handlers
 * dies with exit code 139. Run it a few times each without and with
 * {@code LD_PRELOAD=$JAVA_HOME/lib/libjsig.so}.
 */
public final class SafepointStress {
    private static final int SPINNERS = 4;
    private static final int COLLECTIONS = 3_000;
    private static final String[] WATCHED = {"SIGSEGV:", "SIGBUS:", "SIGFPE:", "SIGILL:"};
    private static volatile long sink;

    private SafepointStress() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            Device device = Devices.select(args[0]);
            System.out.println("selected " + device);
            printHandlers();
        }
        for (int t = 0; t < SPINNERS; t++) {
            Thread spinner = new Thread(SafepointStress::spin, "spinner-" + t);
            spinner.setDaemon(true);
            spinner.start();
        }
        for (int i = 0; i < COLLECTIONS; i++) {
            System.gc();
        }
        System.out.println("survived");
    }

    /** Prints the handler lines of the JVM's "Signal Handlers" report for the signals the JVM faults with. */
    private static void printHandlers() throws Exception {
        String info = (String) ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
                "vmInfo", new Object[] {null}, new String[] {String[].class.getName()});
        for (String line : info.split("\n")) {
            for (String signal : WATCHED) {
                if (line.strip().startsWith(signal)) {
                    System.out.println("handler " + line.strip());
                }
            }
        }
    }

    private static void spin() {
        int[] x = new int[1024];
        long s = 0;
        while (true) {
            for (int i = 0; i < x.length; i++) {
                s += x[i] ^ i;
                x[i] = (int) s;
            }
            sink = s;
        }
    }
}
