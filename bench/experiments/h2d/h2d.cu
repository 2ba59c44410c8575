#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
int main() {
  const size_t bytes = 400ull << 20;
  char *h = (char *)malloc(bytes); memset(h, 1, bytes);
  char *d; cudaMalloc(&d, bytes);
  cudaStream_t s[8]; for (int i = 0; i < 8; ++i) cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking);
  for (int k : {1, 2, 4, 8, 1, 2, 4, 8}) {
    double best = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      cudaDeviceSynchronize();
      auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> th;
      for (int i = 0; i < k; ++i) th.emplace_back([&, i] {
        size_t a = bytes * i / k, b = bytes * (i + 1) / k;
        cudaMemcpyAsync(d + a, h + a, b - a, cudaMemcpyHostToDevice, s[i]);
        cudaStreamSynchronize(s[i]);
      });
      for (auto &t : th) t.join();
      double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (dt < best) best = dt;
    }
    printf("pageable threads %d: %.2f ms  %.1f GB/s\n", k, best * 1e3, bytes / best / 1e9);
  }
  char *p; cudaMallocHost(&p, bytes); memset(p, 1, bytes);
  auto t0 = std::chrono::steady_clock::now();
  cudaMemcpy(d, p, bytes, cudaMemcpyHostToDevice);
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("pinned: %.2f ms %.1f GB/s\n", dt * 1e3, bytes / dt / 1e9);
  t0 = std::chrono::steady_clock::now();
  cudaHostRegister(h, bytes, 0);
  dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("hostregister 400MB: %.2f ms\n", dt * 1e3);
  t0 = std::chrono::steady_clock::now();
  cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
  dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("registered copy: %.2f ms %.1f GB/s\n", dt * 1e3, bytes / dt / 1e9);
  for (size_t mb : {100, 400}) { void *q; auto t1 = std::chrono::steady_clock::now(); cudaMalloc(&q, mb << 20); double a = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(); t1 = std::chrono::steady_clock::now(); cudaFree(q); double f = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(); printf("cudaMalloc %zu MB: %.3f ms, cudaFree %.3f ms\n", mb, a*1e3, f*1e3); }
  for (size_t mb : {100, 400}) { void *q; auto t1 = std::chrono::steady_clock::now(); cudaMallocAsync(&q, mb << 20, s[0]); cudaStreamSynchronize(s[0]); double a = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(); t1 = std::chrono::steady_clock::now(); cudaFreeAsync(q, s[0]); cudaStreamSynchronize(s[0]); double f = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(); printf("cudaMallocAsync %zu MB: %.3f ms, free+sync %.3f ms\n", mb, a*1e3, f*1e3); }
  return 0;
}
