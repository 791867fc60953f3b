/** The cuda-ipc PD transfer engine: GPU-to-GPU page copies into a decode pool exported by CUDA IPC on the same host. */
module org.kvflow.transport.cudaipc {
    requires transitive org.kvflow.transport.tcp;
    requires reactor.core;

    exports org.kvflow.transport.cudaipc;

    provides org.kvflow.transfer.TransferEngine with org.kvflow.transport.cudaipc.CudaIpcEngine;
}
