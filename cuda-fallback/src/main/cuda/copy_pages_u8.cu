// Page copy for page sizes that are not a multiple of 16 bytes (toy layouts): one byte per step.
// Launch: grid.x = min(pairs, 16 x SMs) blocks striding over pairs, grid.y = KV components,
// block = 256 threads; same arguments as copy_pages_v4 with page sizes in bytes.
extern "C" __global__ void copy_pages_u8(const unsigned long long* __restrict__ srcBases,
                                         const unsigned long long* __restrict__ dstBases,
                                         const int* __restrict__ pageBytes,
                                         const long long* __restrict__ srcPages,
                                         const long long* __restrict__ dstPages,
                                         long long pairs) {
  const int comp = blockIdx.y;
  const int size = pageBytes[comp];
  const unsigned char* __restrict__ src = reinterpret_cast<const unsigned char*>(srcBases[comp]);
  unsigned char* __restrict__ dst = reinterpret_cast<unsigned char*>(dstBases[comp]);
  for (long long p = blockIdx.x; p < pairs; p += gridDim.x) {
    const unsigned char* s = src + srcPages[p] * size;
    unsigned char* d = dst + dstPages[p] * size;
    for (int j = threadIdx.x; j < size; j += blockDim.x) {
      d[j] = s[j];
    }
  }
}
