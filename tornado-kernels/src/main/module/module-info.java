/** The TornadoVM-shaped kernel API, its Java and Aparapi backends, and the kernels of the NSA/MLA step. */
module org.kvflow.kernels {
    requires transitive org.kvflow.pages;
    requires aparapi;

    exports org.kvflow.kernels.api;
    exports org.kvflow.kernels.gather;
    exports org.kvflow.kernels.linalg;
    exports org.kvflow.kernels.nsa;
    exports org.kvflow.kernels.quant;
    exports org.kvflow.kernels.rows;
    // the Aparapi translation the cuda device reuses
    exports org.kvflow.kernels.aparapi to org.kvflow.cuda;

    uses org.kvflow.kernels.api.KernelBackend;
    provides org.kvflow.kernels.api.KernelBackend with org.kvflow.kernels.java.JavaBackend, org.kvflow.kernels.aparapi.AparapiBackend;
}
