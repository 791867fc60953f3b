package org.kvflow.bench;

import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;

/**
 * Whether a JVM survives safepoints after a native library took its signal handlers (D51):
 * with {@code opencl} as argument it first lists the OpenCL devices (which starts PoCL), then four
 * threads spin in compiled loops while the main thread asks for 3,000 collections, each a
 * safepoint those threads reach by faulting on purpose. Prints {@code survived} and exits 0; a JVM
 * that lost its handlers dies with exit code 139. Run it a few times each without and with
 * {@code LD_PRELOAD=$JAVA_HOME/lib/libjsig.so}.
 */
public final class SafepointStress {
    private static final int SPINNERS = 4;
    private static final int COLLECTIONS = 3_000;
    private static volatile long sink;

    private SafepointStress() {}

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("opencl")) {
            Device device = Devices.select("opencl");
            System.out.println("listed " + device);
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
