package org.kvflow.cuda.graph;

import com.aparapi.Kernel;
import com.aparapi.internal.model.ClassModel;
import com.aparapi.internal.writer.KernelWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.bcel.Repository;
import org.kvflow.kernels.aparapi.MmaShape;

/**
 * A twin's kernel as CUDA C, made from the one Java source: Aparapi's code writer turns the
 * twin's bytecode into OpenCL C, and a few mechanical rewrites make that C compile with
 * {@code nvcc}: a prelude maps OpenCL's qualifiers and work-item functions onto CUDA's, the
 * helper functions become {@code __device__}, the C++ keyword {@code this} is renamed, and each
 * {@code __local} array parameter becomes a byte offset into the launch's dynamic shared memory.
 * Launch bounds ask {@code nvcc} to fit a full multiprocessor of blocks (at most 32 registers a
 * thread for blocks of 256), so a launch of about 8 blocks per multiprocessor runs in one wave; a
 * twin that uses the matrix-multiply intrinsic asks for half as many blocks (its tiles' shared
 * memory holds no more anyway), which leaves its fragments registers enough not to spill.
 * {@link #hash()} names the compiled module: it covers the source and the compiler flags, so an
 * edited kernel never meets a stale module.
 *
 * <p>Limits of the mapping (checked by compiling every twin in the build): one-dimensional ranges
 * only (another dimension fails to compile); OpenCL masks shift counts and CUDA does not, so a
 * twin may not shift by 32 or more; Aparapi's {@code atomicAdd} maps onto CUDA's, on global and on
 * shared memory alike (Aparapi's own OpenCL declares it for global memory only); the
 * {@code barrier} fences map to {@code __syncthreads()}, which orders both shared and global
 * memory within a block.
 */
record CudaTwinSource(String kernel, String source, List<KernelParam> params, String hash) {
    /** Flags of every twin module: Hopper code plus PTX for newer GPUs, no fused multiply-adds (Java never fuses). */
    static final List<String> NVCC_FLAGS = List.of("-gencode=arch=compute_90,code=[sm_90,compute_90]", "-O3", "-fmad=false",
            "-diag-suppress", "68,177,550");

    private static final String PRELUDE = """
            // Written by kvflow from the OpenCL C that Aparapi made of %s; do not edit.
            // blocks of %d threads, registers capped so that %d blocks fill a multiprocessor's 2,048 threads
            #define __kernel extern "C" __global__ __launch_bounds__(%d, %d)
            #define __global
            #define __local
            #define __constant
            #define CLK_LOCAL_MEM_FENCE 1
            #define CLK_GLOBAL_MEM_FENCE 2
            #define barrier(fences) __syncthreads()
            // Aparapi's atomicAdd(array, index, delta) helper calls OpenCL's atomic_add
            #define atomic_add(address, delta) atomicAdd((address), (delta))
            // ranges are one-dimensional: a dimension other than 0 names an undefined identifier
            #define get_global_id(dim) kvflow_global_id_##dim
            #define get_local_id(dim) kvflow_local_id_##dim
            #define get_group_id(dim) kvflow_group_id_##dim
            #define get_local_size(dim) kvflow_local_size_##dim
            #define get_num_groups(dim) kvflow_num_groups_##dim
            #define get_global_size(dim) kvflow_global_size_##dim
            #define kvflow_global_id_0 ((int) (blockIdx.x * blockDim.x + threadIdx.x))
            #define kvflow_local_id_0 ((int) threadIdx.x)
            #define kvflow_group_id_0 ((int) blockIdx.x)
            #define kvflow_local_size_0 ((int) blockDim.x)
            #define kvflow_num_groups_0 ((int) gridDim.x)
            #define kvflow_global_size_0 ((int) (gridDim.x * blockDim.x))
            """;
    /**
     * The tensor-core body of the matrix-multiply intrinsic ({@code mmaTiles} of Aparapi's
     * {@code MmaTask}): each warp takes 16 × 16 tiles of C in turn and adds A·Bᵀ with tf32
     * {@code wmma} fragments of depth 8. A and B are each split into a high and a low tf32 part and
     * three products are summed (lo·hi, hi·lo, hi·hi; lo·lo is below fp32's rounding), so the
     * result keeps about fp32 precision. Formatted with the name, M, N, K, the A/B row stride and
     * the C row stride.
     */
    private static final String MMA_BODY = """
            __device__ void %1$s(This *self){
               // kvflow: the matrix-multiply intrinsic on tensor cores (replaces Aparapi's plain loops)
               using namespace nvcuda;
               const int tilesN = %3$d / 16;
               for (int t = threadIdx.x / 32; t < (%2$d / 16) * tilesN; t += blockDim.x / 32) {
                  int tm = t / tilesN;
                  int tn = t - tm * tilesN;
                  float *cTile = self->tileC + tm * 16 * %6$d + tn * 16;
                  wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
                  wmma::load_matrix_sync(c, cTile, %6$d, wmma::mem_row_major);
                  for (int k = 0; k < %4$d; k += 8) {
                     wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> aHi, aLo;
                     wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> bHi, bLo;
                     wmma::load_matrix_sync(aHi, self->tileA + tm * 16 * %5$d + k, %5$d);
                     wmma::load_matrix_sync(bHi, self->tileB + tn * 16 * %5$d + k, %5$d);
                     for (int i = 0; i < aHi.num_elements; i++) {
                        float x = aHi.x[i];
                        float h = wmma::__float_to_tf32(x);
                        aHi.x[i] = h;
                        aLo.x[i] = wmma::__float_to_tf32(x - h);
                     }
                     for (int i = 0; i < bHi.num_elements; i++) {
                        float x = bHi.x[i];
                        float h = wmma::__float_to_tf32(x);
                        bHi.x[i] = h;
                        bLo.x[i] = wmma::__float_to_tf32(x - h);
                     }
                     wmma::mma_sync(c, aLo, bHi, c);
                     wmma::mma_sync(c, aHi, bLo, c);
                     wmma::mma_sync(c, aHi, bHi, c);
                  }
                  wmma::store_matrix_sync(cTile, c, %6$d, wmma::mem_row_major);
               }
            }
            """;
    /**
     * The order-key intrinsic ({@code orderKey} of Aparapi's {@code TopKAparapi}) from the float's
     * bits, as Java's {@code floatToIntBits} reads them. Selects, not branches: a branch on a loaded
     * score would hold back the loads after it, so a top-k sweep would keep one load in flight a
     * thread instead of its unrolled four.
     */
    private static final String ORDER_KEY_BODY = """
            __device__ int %1$s(This *self, float x){
               // kvflow: the order key from the float's bits (replaces Aparapi's exact log2 and scaling), branch-free
               int bits = __float_as_int(x);
               int key = bits < 0 ? bits ^ 0x7FFFFFFF : bits;
               key = x == 0.0f ? 0 : key;
               return x != x ? 0x7FC00000 : key;
            }
            """;
    private static final Pattern HELPER = Pattern.compile("(?m)^(?!__kernel|typedef)([A-Za-z_][^\\n;{}]*\\)\\{)$");
    private static final Pattern THIS = Pattern.compile("\\bthis\\b");
    private static final Pattern PARAM = Pattern.compile("(__global|__local|__constant)?\\s*([A-Za-z_][\\w ]*?)\\s*(\\*?)\\s*(\\w+)");
    private static final String ENTRY = "__kernel void run(";

    /** Threads a multiprocessor of an H100/H200 holds: the launch bounds aim at filling it. */
    private static final int THREADS_PER_MULTIPROCESSOR = 2048;

    /**
     * The CUDA C of {@code twin}'s class ({@code twin} is an instance, as Aparapi's writer wants
     * one), for blocks of {@code localSize} threads.
     */
    static CudaTwinSource translate(String kernel, Kernel twin, int localSize) {
        String openCl;
        try {
            // Aparapi reads bytecode through BCEL, whose repository caches classes by name: a kernel
            // class loaded anew under the same name (an edited kernel) must not be read from that cache
            Repository.clearCache();
            openCl = KernelWriter.writeToString(ClassModel.createClassModel(twin.getClass()).getEntrypoint("run", twin));
        } catch (Exception e) { // Aparapi's ClassParseException and CodeGenException are checked
            throw new IllegalArgumentException("Aparapi could not write OpenCL C for " + twin.getClass().getName() + ": " + e.getMessage(), e);
        }
        return fromOpenCl(kernel, twin.getClass().getName(), openCl, localSize);
    }

    /** The rewrite of Aparapi's OpenCL C {@code openCl} (of class {@code origin}) into CUDA C for blocks of {@code localSize}. */
    static CudaTwinSource fromOpenCl(String kernel, String origin, String openCl, int localSize) {
        if (localSize < 1 || localSize > THREADS_PER_MULTIPROCESSOR / 2) {
            throw new IllegalArgumentException("blocks of " + localSize + " threads: the cuda translation takes 1 to "
                    + THREADS_PER_MULTIPROCESSOR / 2);
        }
        int blocks = THREADS_PER_MULTIPROCESSOR / localSize;
        String c = openCl.lines().filter(l -> !l.startsWith("#pragma OPENCL")).reduce("", (a, l) -> a + l + "\n");
        c = THIS.matcher(c).replaceAll("self");
        c = HELPER.matcher(c).replaceAll("__device__ $1");
        String withMma = intrinsic(c, "void", "mmaTiles", "", name -> MMA_BODY.formatted(name, MmaShape.M, MmaShape.N, MmaShape.K,
                MmaShape.AB_STRIDE, MmaShape.C_STRIDE));
        boolean tensorCores = !withMma.equals(c);
        c = intrinsic(withMma, "int", "orderKey", ", float x", ORDER_KEY_BODY::formatted);
        int entry = c.indexOf(ENTRY);
        int bodyStart = c.indexOf("){", entry);
        if (entry < 0 || bodyStart < 0) {
            throw new IllegalArgumentException("no entry point '" + ENTRY + "...){' in the OpenCL C of " + origin);
        }
        List<KernelParam> params = new ArrayList<>();
        List<String> declared = new ArrayList<>();
        StringBuilder carve = new StringBuilder();
        for (String raw : c.substring(entry + ENTRY.length(), bodyStart).split(",")) {
            String p = raw.strip();
            if (p.isEmpty()) {
                continue;
            }
            Matcher m = PARAM.matcher(p);
            if (!m.matches()) {
                throw new IllegalArgumentException("parameter '" + p + "' of " + origin + " is not of a form the cuda translation knows");
            }
            String qualifier = m.group(1) == null ? "" : m.group(1);
            String type = m.group(2).strip();
            String name = m.group(4);
            boolean pointer = !m.group(3).isEmpty();
            KernelParam param;
            if (qualifier.equals("__local") && pointer) {
                param = new KernelParam(KernelParam.Kind.SHARED_ARRAY, type, name);
                declared.add("int " + name + "__offset");
                carve.append("\n   ").append(type).append(" *").append(name).append(" = (").append(type).append(" *) (kvflow_shared + ")
                        .append(name).append("__offset);");
            } else {
                KernelParam.Kind kind = pointer ? KernelParam.Kind.GLOBAL_ARRAY
                        : name.equals("passid") ? KernelParam.Kind.PASS_ID
                        : name.endsWith(KernelParam.LENGTH_SUFFIX) ? KernelParam.Kind.ARRAY_LENGTH : KernelParam.Kind.SCALAR;
                param = new KernelParam(kind, type, name);
                declared.add(p);
            }
            params.add(param);
        }
        String shared = carve.isEmpty() ? "" : "\n   extern __shared__ __align__(32) unsigned char kvflow_shared[];" + carve;
        if (tensorCores) {
            blocks = Math.max(1, blocks / 2);
        }
        // mma.h goes before the prelude's macros, which would rename identifiers in it
        String source = (tensorCores ? "#include <mma.h>\n" : "") + PRELUDE.formatted(origin, localSize, blocks, localSize, blocks) + c.substring(0, entry) + ENTRY + "\n   " + String.join(",\n   ", declared) + "\n){" + shared
                + c.substring(bodyStart + 2);
        return new CudaTwinSource(kernel, source, List.copyOf(params), sha256(source + "\n" + String.join(" ", NVCC_FLAGS)));
    }

    /**
     * {@code c} with the helper Aparapi wrote for the intrinsic {@code method} (returning
     * {@code type}, with {@code params} after {@code This *self}) replaced by the cuda body
     * {@code body} makes of the helper's name; unchanged if the twin does not call it.
     */
    private static String intrinsic(String c, String type, String method, String params, UnaryOperator<String> body) {
        Matcher m = Pattern.compile("(?s)__device__ " + type + " (\\w*__" + method + ")\\(This \\*self" + Pattern.quote(params)
                + "\\)\\{\n.*?\n\\}\n").matcher(c);
        return m.find() ? c.substring(0, m.start()) + body.apply(m.group(1)) + c.substring(m.end()) : c;
    }

    /** The module's file name: the twin's simple name and the hash. */
    String moduleName() {
        return kernel.substring(kernel.lastIndexOf('.', kernel.lastIndexOf('.') - 1) + 1).replace('.', '-') + "-" + hash;
    }

    private static String sha256(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
