package org.kvflow.cuda.graph;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Compiled twin modules (fatbins), found by {@link CudaTwinSource#moduleName()}: first among the
 * jar's resources ({@code /cuda/twins/}, compiled by the build where {@code nvcc} exists), then in
 * the disk cache ({@code kvflow.cuda.cache}, else {@code $KVFLOW_CUDA_CACHE}, else
 * {@code ~/.cache/kvflow/cuda}), else compiled now with {@code nvcc} and stored in the cache. The
 * name carries the source hash, so a changed kernel is compiled anew, never served stale.
 */
final class TwinModules {
    static final String RESOURCES = "/cuda/twins/";
    private static final long NVCC_TIMEOUT_SECONDS = 120;

    private TwinModules() {}

    /** Where a module came from, and its bytes. */
    record Module(byte[] fatbin, String origin) {}

    /** @throws ModuleCompileException if the module is nowhere and {@code nvcc} cannot make it (the message says why) */
    static Module fatbin(CudaTwinSource source) {
        String file = source.moduleName() + ".fatbin";
        try (InputStream in = TwinModules.class.getResourceAsStream(RESOURCES + file)) {
            if (in != null) {
                return new Module(in.readAllBytes(), "jar");
            }
            Path cached = cacheDir().resolve(file);
            if (Files.isRegularFile(cached)) {
                return new Module(Files.readAllBytes(cached), "cache");
            }
            Files.createDirectories(cached.getParent());
            Path tmp = Files.createTempFile(cached.getParent(), source.moduleName(), ".fatbin.tmp");
            try {
                compile(source, tmp);
                Files.move(tmp, cached, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
            return new Module(Files.readAllBytes(cached), "nvcc");
        } catch (IOException e) {
            throw new UncheckedIOException("twin module " + file, e);
        }
    }

    /** Compiles {@code source} into the fatbin {@code out} with {@code nvcc} (found on the PATH or in /usr/local/cuda/bin). */
    static void compile(CudaTwinSource source, Path out) throws IOException {
        String nvcc = nvcc().orElseThrow(() -> new ModuleCompileException("no module " + source.moduleName()
                + " in the jar or the cache, and no nvcc to compile it (PATH, /usr/local/cuda/bin)"));
        Path dir = Files.createTempDirectory("kvflow-nvcc");
        try {
            Path cu = dir.resolve(source.moduleName() + ".cu");
            Files.writeString(cu, source.source());
            List<String> command = new ArrayList<>(List.of(nvcc, "-fatbin"));
            command.addAll(CudaTwinSource.NVCC_FLAGS);
            command.addAll(List.of("-o", out.toString(), cu.toString()));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String log;
            try (InputStream in = p.getInputStream()) {
                log = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            }
            if (!p.waitFor(NVCC_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new ModuleCompileException("nvcc did not finish within " + NVCC_TIMEOUT_SECONDS + " s");
            }
            if (p.exitValue() != 0) {
                throw new ModuleCompileException("nvcc exited " + p.exitValue() + ": " + log);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ModuleCompileException("interrupted while nvcc compiled " + source.moduleName());
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    static Optional<String> nvcc() {
        List<Path> candidates = new ArrayList<>();
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!d.isEmpty()) {
                candidates.add(Path.of(d, "nvcc"));
            }
        }
        candidates.add(Path.of("/usr/local/cuda/bin/nvcc"));
        return candidates.stream().filter(Files::isExecutable).map(Path::toString).findFirst();
    }

    static Path cacheDir() {
        String dir = System.getProperty("kvflow.cuda.cache", System.getenv("KVFLOW_CUDA_CACHE"));
        return dir != null ? Path.of(dir) : Path.of(System.getProperty("user.home"), ".cache", "kvflow", "cuda");
    }

    /** A twin module could not be found or compiled; the message says why. */
    static final class ModuleCompileException extends RuntimeException {
        ModuleCompileException(String message) {
            super(message);
        }
    }
}
