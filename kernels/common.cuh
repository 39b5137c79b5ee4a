// Shared by every kernel: src/gpu/mod.rs puts this file in front of each kernel's source before NVRTC
// compiles it (KERNELS).

#define I32_MIN (-2147483647 - 1)

// 32-bit wrap-around, as the CPU code's unsigned arithmetic
__device__ __forceinline__ int wadd(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int wsub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
