package org.kvflow.cuda.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.aparapi.Kernel;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.kernels.aparapi.Twins;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.KernelCompileException;
import org.kvflow.kernels.api.KernelRef;

/**
 * Java kernels become CUDA modules without a GPU: every twin translates and its module is in the
 * jar (the build compiled it), the rewrite is the one documented, an edited kernel gets a new
 * module, and a kernel nvcc refuses is a typed error naming it.
 */
class CudaTwinSourceTest {
    private static final Device CUDA = new Device("cuda", 0, "test", Device.Kind.GPU);

    private static List<String> compiledTwins() {
        return Twins.kernels().stream().filter(k -> !PageMoveLaunch.KERNELS.containsKey(k)).sorted().toList();
    }

    private static Kernel twin(String kernel) {
        int dot = kernel.lastIndexOf('.');
        return Twins.forCuda(new KernelRef(kernel.substring(0, dot), kernel.substring(dot + 1))).orElseThrow().kernel();
    }

    @Test
    void everyTwinTranslatesAndItsParametersAreItsFieldsThenThePassId() {
        assertThat(compiledTwins()).hasSize(14);
        for (String kernel : compiledTwins()) {
            Kernel twin = twin(kernel);
            CudaTwinSource source = CudaTwinSource.translate(kernel, twin, 256);
            assertThat(source.source()).as(kernel).contains("__kernel void run(").doesNotContain("This* this").doesNotContain("#pragma OPENCL");
            assertThat(source.params().getLast().kind()).isEqualTo(KernelParam.Kind.PASS_ID);
            for (KernelParam p : source.params().subList(0, source.params().size() - 1)) {
                assertThat(fieldNamed(twin.getClass(), p.field())).as("%s parameter %s", kernel, p).isTrue();
            }
            long shared = source.params().stream().filter(p -> p.kind() == KernelParam.Kind.SHARED_ARRAY).count();
            assertThat(source.source().contains("extern __shared__")).as(kernel).isEqualTo(shared > 0);
        }
        CudaTwinSource topK = CudaTwinSource.translate("topK", twin("org.kvflow.kernels.nsa.IndexerKernels.topKRows"), 256);
        assertThat(topK.params().stream().filter(p -> p.kind() == KernelParam.Kind.SHARED_ARRAY).map(KernelParam::name))
                .containsExactlyInAnyOrder("pick", "scan", "hist", "whole");
        // cuda's top-k counts digits with shared-memory atomics: Aparapi's helper, mapped onto CUDA's atomicAdd
        assertThat(topK.source()).contains("#define atomic_add(address, delta) atomicAdd((address), (delta))")
                .contains("atomicAdd(self->hist, ");
        // and takes order keys from the floats' bits, where Aparapi's OpenCL computes them from log2
        String orderKey = topK.source().substring(topK.source().indexOf("__orderKey(This *self, float x){"));
        assertThat(orderKey.substring(0, orderKey.indexOf("\n}\n"))).contains("__float_as_int(x)").doesNotContain("log2(");
        // the indexer's scores multiply tiles with the API's intrinsic: on cuda its body is tensor-core code, not Aparapi's loops
        String scores = CudaTwinSource.translate("scores", twin("org.kvflow.kernels.nsa.IndexerKernels.scoreFp8"), 256).source();
        assertThat(scores).startsWith("#include <mma.h>\n").contains("wmma::mma_sync(c, aHi, bHi, c);").containsOnlyOnce("__mmaTiles(This *self){")
                .doesNotContain("acc = acc + (self->tileA");
        // so do the dense product and the indexer's many-head scores
        for (String kernel : List.of("org.kvflow.kernels.linalg.MatrixKernels.gemm", "org.kvflow.kernels.nsa.IndexerKernels.scoreHeads")) {
            assertThat(CudaTwinSource.translate(kernel, twin(kernel), 256).source()).as(kernel).startsWith("#include <mma.h>\n")
                    .contains("wmma::mma_sync(c, aHi, bHi, c);");
        }
        if (System.getenv("KVFLOW_SHOW_TWIN") != null) {
            System.out.println(scores);
        }
    }

    private static boolean fieldNamed(Class<?> c, String name) {
        for (; c != null; c = c.getSuperclass()) {
            if (Arrays.stream(c.getDeclaredFields()).map(Field::getName).anyMatch(name::equals)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void theRewriteMapsQualifiersHelpersThisAndSharedArrays() {
        String openCl = """
                #pragma OPENCL EXTENSION cl_khr_fp64 : enable
                typedef struct This_s{
                   __global int *out;
                   __local int *tile;
                   int n;
                   int passid;
                }This;
                int get_pass_id(This *this){
                   return this->passid;
                }
                __kernel void run(
                   __global int *out,\s
                   __local int *tile,\s
                   int n,\s
                   int passid
                ){
                   This thisStruct;
                   This* this=&thisStruct;
                   this->out = out;
                   this->tile = tile;
                   {
                      this->tile[get_local_id(0)] = this->n;
                      barrier(CLK_LOCAL_MEM_FENCE);
                      this->out[get_global_id(0)] = this->tile[0];
                   }
                }
                """;
        CudaTwinSource s = CudaTwinSource.fromOpenCl("probe.K.run", "probe.K", openCl, 256);
        assertThat(s.params()).containsExactly(new KernelParam(KernelParam.Kind.GLOBAL_ARRAY, "int", "out"),
                new KernelParam(KernelParam.Kind.SHARED_ARRAY, "int", "tile"), new KernelParam(KernelParam.Kind.SCALAR, "int", "n"),
                new KernelParam(KernelParam.Kind.PASS_ID, "int", "passid"));
        assertThat(s.source()).contains("#define __kernel extern \"C\" __global__ __launch_bounds__(256, 8)");
        String body = s.source().substring(s.source().indexOf("typedef"));
        assertThat(body).isEqualTo("""
                typedef struct This_s{
                   __global int *out;
                   __local int *tile;
                   int n;
                   int passid;
                }This;
                __device__ int get_pass_id(This *self){
                   return self->passid;
                }
                __kernel void run(
                   __global int *out,
                   int tile__offset,
                   int n,
                   int passid
                ){
                   extern __shared__ __align__(32) unsigned char kvflow_shared[];
                   int *tile = (int *) (kvflow_shared + tile__offset);
                   This thisStruct;
                   This* self=&thisStruct;
                   self->out = out;
                   self->tile = tile;
                   {
                      self->tile[get_local_id(0)] = self->n;
                      barrier(CLK_LOCAL_MEM_FENCE);
                      self->out[get_global_id(0)] = self->tile[0];
                   }
                }
                """);
        assertThat(s.moduleName()).isEqualTo("K-run-" + s.hash()).matches("K-run-[0-9a-f]{24}");
        assertThatThrownBy(() -> CudaTwinSource.fromOpenCl("probe.K.run", "probe.K", openCl, 2048)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("blocks of 2048 threads: the cuda translation takes 1 to 1024");
        assertThatThrownBy(() -> CudaTwinSource.fromOpenCl("probe.K.run", "probe.K", "int f(){}", 256)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no entry point '__kernel void run(...){' in the OpenCL C of probe.K");
    }

    @Test
    void theBuildPutEveryTwinsModuleInTheJar() {
        assumeTrue(TwinModules.nvcc().isPresent(), "no nvcc here: the build compiled no twin module, they compile at first use");
        for (String kernel : compiledTwins()) {
            TwinModules.Module m = TwinModules.fatbin(CudaTwinSource.translate(kernel, twin(kernel), 256));
            assertThat(m.origin()).as(kernel).isEqualTo("jar");
            assertThat(Arrays.copyOf(m.fatbin(), 4)).as(kernel).containsExactly(0x50, 0xed, 0x55, 0xba); // fatbin magic 0xBA55ED50
        }
    }

    @Test
    void anEditedKernelIsCompiledAnewNeverServedStale(@TempDir Path dir) throws Exception {
        assumeTrue(TwinModules.nvcc().isPresent(), "no nvcc here to compile an edited kernel");
        assumeTrue(ProbeKernels.available(), "no Java compiler in this runtime to edit a kernel with");
        try (ModuleCacheAt cache = new ModuleCacheAt(dir.resolve("cache"))) {
            CudaTwinSource one = CudaTwinSource.translate("probe.Probe.run", ProbeKernels.compile(dir.resolve("v1"), "out[getGlobalId()] = 1;"), 256);
            CudaTwinSource two = CudaTwinSource.translate("probe.Probe.run", ProbeKernels.compile(dir.resolve("v2"), "out[getGlobalId()] = 2;"), 256);
            assertThat(two.hash()).isNotEqualTo(one.hash());
            TwinModules.Module first = TwinModules.fatbin(one);
            TwinModules.Module second = TwinModules.fatbin(two);
            assertThat(first.origin()).isEqualTo("nvcc");
            assertThat(second.origin()).isEqualTo("nvcc");
            assertThat(second.fatbin()).isNotEqualTo(first.fatbin());
            assertThat(TwinModules.fatbin(one).origin()).isEqualTo("cache");
            assertThat(Files.list(dir.resolve("cache")).map(p -> p.getFileName().toString()).toList())
                    .containsExactlyInAnyOrder(one.moduleName() + ".fatbin", two.moduleName() + ".fatbin");
        }
    }

    @Test
    void aKernelNvccRefusesIsATypedErrorNamingItAndWhy(@TempDir Path dir) throws Exception {
        assumeTrue(TwinModules.nvcc().isPresent(), "no nvcc here");
        assumeTrue(ProbeKernels.available(), "no Java compiler in this runtime");
        try (ModuleCacheAt cache = new ModuleCacheAt(dir.resolve("cache"))) {
            CudaTwinSource twoDimensional = CudaTwinSource.translate("probe.Probe.run", ProbeKernels.compile(dir, "out[getGlobalId(1)] = 1;"), 256);
            assertThatThrownBy(() -> CudaBackend.module(twoDimensional, CUDA)).isInstanceOfSatisfying(KernelCompileException.class, e -> {
                assertThat(e.kernel()).isEqualTo("probe.Probe.run");
                assertThat(e.getMessage()).startsWith("kernel probe.Probe.run cannot run on cuda:0: nvcc exited ")
                        .contains("identifier \"kvflow_global_id_1\" is undefined");
            });
        }
    }
}
