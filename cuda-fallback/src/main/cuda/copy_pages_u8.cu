// Page copy for page sizes that are not a multiple of 16 bytes (toy layouts): one byte per step.
// Same arguments and launch shape as copy_pages_v4 (one block per page slice), sizes in bytes.
extern "C" __global__ void copy_pages_u8(const unsigned char* __restrict__ src0, unsigned char* __restrict__ dst0, int size0,
                                         const unsigned char* __restrict__ src1, unsigned char* __restrict__ dst1, int size1,
                                         const unsigned char* __restrict__ src2, unsigned char* __restrict__ dst2, int size2,
                                         const unsigned char* __restrict__ src3, unsigned char* __restrict__ dst3, int size3,
                                         const long long* __restrict__ srcPages,
                                         const long long* __restrict__ dstPages,
                                         int slices) {
  const int c = blockIdx.y;
  const unsigned char* __restrict__ src = c == 0 ? src0 : c == 1 ? src1 : c == 2 ? src2 : src3;
  unsigned char* __restrict__ dst = c == 0 ? dst0 : c == 1 ? dst1 : c == 2 ? dst2 : dst3;
  const int size = c == 0 ? size0 : c == 1 ? size1 : c == 2 ? size2 : size3;
  const long long p = blockIdx.x / slices;
  const int per = (size + slices - 1) / slices;
  const int from = (blockIdx.x % slices) * per;
  const int to = min(size, from + per);
  const unsigned char* s = src + srcPages[p] * size;
  unsigned char* d = dst + dstPages[p] * size;
  for (int j = from + threadIdx.x; j < to; j += blockDim.x) {
    d[j] = s[j];
  }
}
