/** The NVIDIA side, the only JCuda user: the cuda page memory and the cuda task-graph device, found as services. */
module org.kvflow.cuda {
    requires org.kvflow.kernels;
    requires aparapi;
    requires org.apache.bcel;
    requires jcuda;

    // exports nothing: the page memory and the kernel device are found through ServiceLoader

    provides org.kvflow.pages.PageMemoryProvider with org.kvflow.cuda.CudaPageMemoryProvider;
    provides org.kvflow.kernels.api.KernelBackend with org.kvflow.cuda.graph.CudaBackend;
}
