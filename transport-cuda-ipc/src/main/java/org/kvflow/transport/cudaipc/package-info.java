/**
 * The {@code cuda-ipc} PD transfer engine: on one host, the decode server's pool lies in GPU memory
 * and is exported by CUDA IPC ({@link org.kvflow.transport.cudaipc.CudaIpcLanding}); each prefill
 * rank opens it once and copies its owned pages GPU to GPU, one launch a run
 * ({@link org.kvflow.transport.cudaipc.CudaIpcPlacer}), under the tcp transport's handshake,
 * ownership, refusals and CRC32C checks, the checksums computed on the GPU.
 */
package org.kvflow.transport.cudaipc;
