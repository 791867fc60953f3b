// Page gather and scatter for the cuda task-graph device, the hand-written twin of
// GatherKernels.gatherPages / scatterPages over one device allocation per side.
// gather (scatter == 0): to page k <- from page ids[k];  scatter: to page ids[k] <- from page k.
// Launch: grid.x = pages * slices (a block per slice of a page), block = 128 threads; each
// thread keeps two loads in flight before its stores (the copy_pages_v4 shape).
template <typename V>
__device__ void move(const V* __restrict__ from, V* __restrict__ to, const int* __restrict__ ids,
                     int vec, int slices, int scatter) {
  const long long k = blockIdx.x / slices;
  const long long id = ids[k];
  const long long src = scatter ? k : id;
  const long long dst = scatter ? id : k;
  const int per = (vec + slices - 1) / slices;
  const int start = (blockIdx.x % slices) * per;
  const int end = min(vec, start + per);
  const V* s = from + src * vec;
  V* d = to + dst * vec;
  const int st = blockDim.x;
  for (int j = start + threadIdx.x; j < end; j += 2 * st) {
    const bool second = j + st < end;
    V a = s[j];
    V b;
    if (second) b = s[j + st];
    d[j] = a;
    if (second) d[j + st] = b;
  }
}

// 16-byte units: pages of an even number of 8-byte words.
extern "C" __global__ void page_move_v4(const int4* __restrict__ from, int4* __restrict__ to, const int* __restrict__ ids,
                                        int vec, int slices, int scatter) {
  move(from, to, ids, vec, slices, scatter);
}

// 8-byte units: any page of 8-byte words.
extern "C" __global__ void page_move_v2(const long long* __restrict__ from, long long* __restrict__ to, const int* __restrict__ ids,
                                        int vec, int slices, int scatter) {
  move(from, to, ids, vec, slices, scatter);
}
