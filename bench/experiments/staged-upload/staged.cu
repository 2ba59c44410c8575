// Microbenchmark: upload 400 MB of pageable host memory. cudaMemcpyAsync from pageable memory
// against a staged upload: T host threads memcpy chunks into pinned buffers (two per thread) and
// each chunk goes up with cudaMemcpyAsync on one stream; all copies joined on that stream.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <thread>
#include <vector>

int main()
{
  const size_t bytes = 400ull << 20;
  char        *h     = (char *)malloc(bytes);
  memset(h, 1, bytes);
  char *d;
  cudaMalloc(&d, bytes);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto ms  = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  for (int rep = 0; rep < 2; ++rep) {
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) {
      cudaStreamSynchronize(s);
      auto t0 = now();
      cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s);
      cudaStreamSynchronize(s);
      t.push_back(ms(t0, now()));
    }
    std::sort(t.begin(), t.end());
    printf("pageable: %.2f ms %.1f GB/s\n", t[2], bytes / t[2] / 1e6);
  }
  for (size_t chunk : {2ull << 20, 8ull << 20, 32ull << 20})
    for (int T : {1, 2, 4, 8}) {
      std::vector<char *>      pin(2 * T);
      std::vector<cudaEvent_t> ev(2 * T);
      for (int i = 0; i < 2 * T; ++i) {
        cudaHostAlloc((void **)&pin[i], chunk, cudaHostAllocDefault);
        cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);
      }
      const size_t        nchunk = (bytes + chunk - 1) / chunk;
      std::vector<double> t;
      for (int r = 0; r < 5; ++r) {
        cudaStreamSynchronize(s);
        auto                     t0 = now();
        std::vector<std::thread> th;
        for (int i = 0; i < T; ++i)
          th.emplace_back([&, i] {
            int k = 0;
            for (size_t c = i; c < nchunk; c += T, ++k) {
              const int    b   = 2 * i + (k & 1);
              const size_t off = c * chunk, len = std::min(chunk, bytes - off);
              if (k >= 2) cudaEventSynchronize(ev[b]);
              memcpy(pin[b], h + off, len);
              cudaMemcpyAsync(d + off, pin[b], len, cudaMemcpyHostToDevice, s);
              cudaEventRecord(ev[b], s);
            }
          });
        for (auto &x : th) x.join();
        cudaStreamSynchronize(s);
        t.push_back(ms(t0, now()));
      }
      std::sort(t.begin(), t.end());
      printf("staged chunk %2zu MB threads %d: %.2f ms %.1f GB/s (%s)\n", chunk >> 20, T, t[2], bytes / t[2] / 1e6, cudaGetErrorString(cudaGetLastError()));
      for (int i = 0; i < 2 * T; ++i) cudaFreeHost(pin[i]), cudaEventDestroy(ev[i]);
    }
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    auto t0 = now();
    std::vector<std::thread> th;
    char                    *h2 = (char *)malloc(bytes);
    memset(h2, 0, bytes);
    auto t1 = now();
    memcpy(h2, h, bytes);
    t.push_back(ms(t1, now()));
    free(h2);
  }
  std::sort(t.begin(), t.end());
  printf("host memcpy 1 thread: %.2f ms %.1f GB/s\n", t[2], bytes / t[2] / 1e6);
  return 0;
}
