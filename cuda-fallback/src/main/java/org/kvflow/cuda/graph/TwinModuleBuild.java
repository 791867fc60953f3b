package org.kvflow.cuda.graph;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;
import org.kvflow.kernels.aparapi.Twin;
import org.kvflow.kernels.aparapi.Twins;
import org.kvflow.kernels.api.KernelRef;

/**
 * Build step (run by Maven where {@code nvcc} exists): translates every twin the cuda backend
 * compiles and writes its module into the given folder, {@code target/classes/cuda/twins}, so
 * that the jar carries them and no kernel compiles at run time.
 */
public final class TwinModuleBuild {
    private TwinModuleBuild() {}

    /** @param args the output folder */
    public static void main(String[] args) throws IOException {
        Path out = Files.createDirectories(Path.of(args[0]));
        for (String kernel : new TreeSet<>(Twins.kernels())) {
            if (PageMoveLaunch.KERNELS.containsKey(kernel)) {
                continue;
            }
            int dot = kernel.lastIndexOf('.');
            Twin twin = Twins.forCuda(new KernelRef(kernel.substring(0, dot), kernel.substring(dot + 1))).orElseThrow();
            CudaTwinSource source = CudaTwinSource.translate(kernel, twin.kernel(), twin.localSize());
            Path module = out.resolve(source.moduleName() + ".fatbin");
            if (!Files.exists(module)) {
                TwinModules.compile(source, module);
            }
            System.out.println("[kvflow] " + kernel + " -> " + out.relativize(module));
        }
    }
}
