package org.kvflow.cuda.graph;

import com.aparapi.Kernel;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Small Aparapi kernels compiled from source during a test, each version in its own class loader:
 * how a test edits a kernel. {@code probe.Probe} writes {@code run()}'s body over one int array
 * {@code out}.
 */
final class ProbeKernels {
    private ProbeKernels() {}

    /** Whether this runtime has a Java compiler (a JDK, not a jlink'd JRE without jdk.compiler). */
    static boolean available() {
        return ToolProvider.getSystemJavaCompiler() != null;
    }

    /** A fresh {@code probe.Probe} whose {@code run()} is {@code body}, compiled under {@code dir}. */
    static Kernel compile(Path dir, String body) throws IOException, ReflectiveOperationException {
        Path src = Files.createDirectories(dir.resolve("src/probe")).resolve("Probe.java");
        Files.writeString(src, """
                package probe;
                public class Probe extends com.aparapi.Kernel {
                    public int[] out = new int[1];
                    @Override public void run() { %s }
                }
                """.formatted(body));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, List.of("-g", "-proc:none", "-cp", System.getProperty("java.class.path"),
                "-d", classes.toString(), src.toString()).toArray(String[]::new));
        if (rc != 0) {
            throw new IllegalStateException("javac exited " + rc + " on " + src);
        }
        ClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, ProbeKernels.class.getClassLoader());
        return (Kernel) loader.loadClass("probe.Probe").getConstructor().newInstance();
    }
}
