// Page gather, scatter and direct copy for the cuda task-graph device, the hand-written twin of
// GatherKernels.gatherPages / scatterPages / copyPages over one device allocation per side.
// mode 0 (gather): to page k <- from page ids[k];  1 (scatter): to page ids[k] <- from page k;
// 2 (copy): to page toIds[k] <- from page ids[k].
// Launch: grid.x = pages * slices (a block per slice of a page), block = 128 threads.
#include "copy_slice.cuh"

template <typename V>
__device__ void move(const V* __restrict__ from, V* __restrict__ to, const int* __restrict__ ids,
                     const int* __restrict__ toIds, int vec, int slices, int mode) {
  const long long k = blockIdx.x / slices;
  const long long id = ids[k];
  const long long src = mode == 1 ? k : id;
  const long long dst = mode == 0 ? k : mode == 1 ? id : (long long) toIds[k];
  const int per = (vec + slices - 1) / slices;
  const int start = (blockIdx.x % slices) * per;
  const int end = min(vec, start + per);
  copy_slice(from + src * vec, to + dst * vec, start, end);
}

// 16-byte units: pages of an even number of 8-byte words.
extern "C" __global__ void page_move_v4(const int4* __restrict__ from, int4* __restrict__ to, const int* __restrict__ ids,
                                        const int* __restrict__ toIds, int vec, int slices, int mode) {
  move(from, to, ids, toIds, vec, slices, mode);
}

// 8-byte units: any page of 8-byte words.
extern "C" __global__ void page_move_v2(const long long* __restrict__ from, long long* __restrict__ to, const int* __restrict__ ids,
                                        const int* __restrict__ toIds, int vec, int slices, int mode) {
  move(from, to, ids, toIds, vec, slices, mode);
}
