// Page copy with 16-byte accesses: dst page dstPages[p] <- src page srcPages[p], for every p.
// Launch: grid.x = min(pairs, 16 x SMs) blocks striding over pairs, grid.y = KV components
// (each component its own src/dst base and page size in int4 units), block = 256 threads.
// Each thread issues four independent 16-byte loads before its four stores, so loads overlap.
extern "C" __global__ void copy_pages_v4(const unsigned long long* __restrict__ srcBases,
                                         const unsigned long long* __restrict__ dstBases,
                                         const int* __restrict__ pageVecs,
                                         const long long* __restrict__ srcPages,
                                         const long long* __restrict__ dstPages,
                                         long long pairs) {
  const int comp = blockIdx.y;
  const int pageVec = pageVecs[comp];
  const int4* __restrict__ src = reinterpret_cast<const int4*>(srcBases[comp]);
  int4* __restrict__ dst = reinterpret_cast<int4*>(dstBases[comp]);
  const int stride = blockDim.x;
  for (long long p = blockIdx.x; p < pairs; p += gridDim.x) {
    const int4* s = src + srcPages[p] * pageVec;
    int4* d = dst + dstPages[p] * pageVec;
    int j = threadIdx.x;
    for (; j + 3 * stride < pageVec; j += 4 * stride) {
      int4 a = __ldg(s + j);
      int4 b = __ldg(s + j + stride);
      int4 c = __ldg(s + j + 2 * stride);
      int4 e = __ldg(s + j + 3 * stride);
      d[j] = a;
      d[j + stride] = b;
      d[j + 2 * stride] = c;
      d[j + 3 * stride] = e;
    }
    for (; j < pageVec; j += stride) {
      d[j] = __ldg(s + j);
    }
  }
}
