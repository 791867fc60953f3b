// One block's slice [start, end) of a page copy, in units V: each thread keeps two loads in flight
// before its stores (the shape bench/device/copy_variants.cu measured at 0.97x a contiguous copy).
// Shared by copy_pages_v4.cu and page_move.cu.
template <typename V>
__device__ __forceinline__ void copy_slice(const V* __restrict__ s, V* __restrict__ d, int start, int end) {
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
