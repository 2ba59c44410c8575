// GPU suite: the staged host -> device upload (core/host_upload.hpp) copies exactly what a direct
// cudaMemcpyAsync copies, for sizes around the chunk boundaries and any thread count; the source
// may change as soon as the call returns; back-to-back uploads reuse the pinned ring safely; a
// pinned source, an offset and a released ring work too.
#include "common/check.hpp"

#include "core/device_buffer.hpp"
#include "core/host_upload.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using gftest::check;
using namespace gpuformats;

namespace {

std::vector<double> random_values(std::size_t n, uint64_t seed)
{
  std::mt19937_64     g(seed);
  std::vector<double> v(n);
  for (double &x : v) x = (double)(g() >> 11) * 0x1p-53 - 0.5;
  return v;
}

std::vector<double> download(const DeviceBuffer<double> &d, std::size_t n, cudaStream_t s)
{
  std::vector<double> h(n);
  d.download(h.data(), n, s);
  GPUFORMATS_CUDA(cudaStreamSynchronize(s));
  return h;
}

bool same(const std::vector<double> &a, const std::vector<double> &b) { return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0; }

} // namespace

int main()
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("ok upload # SKIP no CUDA device\n");
    return 0;
  }
  try {
    cudaStream_t s;
    GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const std::size_t chunk = kUploadChunkBytes / sizeof(double);
    const std::size_t sizes[] = {1, 1000, chunk - 1, chunk, chunk + 1, 2 * chunk, 5 * chunk + 3, 37 * chunk / 7};
    for (int threads : {1, 2, 3, 4, 8}) {
      for (std::size_t n : sizes) {
        const std::string   name = "upload.t" + std::to_string(threads) + ".n" + std::to_string(n);
        std::vector<double> h = random_values(n, n * 31 + threads), want = h;
        DeviceBuffer<double> d(n);
        d.upload(h.data(), n, s, 0, threads);
        std::fill(h.begin(), h.end(), -7.0); // the source may change once upload returns
        check(same(download(d, n, s), want), name + ".exact_and_source_free");
      }
      // Two uploads back to back, no synchronisation between: the second refills ring buffers the
      // first's copies may still read.
      const std::size_t    n = 6 * chunk + 11;
      std::vector<double>  a = random_values(n, 1), b = random_values(n, 2);
      DeviceBuffer<double> da(n), db(n);
      da.upload(a.data(), n, s, 0, threads);
      db.upload(b.data(), n, s, 0, threads);
      check(same(download(da, n, s), a) && same(download(db, n, s), b), "upload.t" + std::to_string(threads) + ".back_to_back");
      // An offset into the device buffer
      DeviceBuffer<double> dz(n + 5);
      std::vector<double>  z(5, 0.0);
      dz.upload(z.data(), 5, s, 0, threads);
      dz.upload(a.data(), n, s, 5, threads);
      std::vector<double> got = download(dz, n + 5, s), want(z);
      want.insert(want.end(), a.begin(), a.end());
      check(same(got, want), "upload.t" + std::to_string(threads) + ".offset");
    }
    { // pinned source: copied directly
      const std::size_t  n = 3 * chunk + 1;
      double            *p = nullptr;
      GPUFORMATS_CUDA(cudaMallocHost(reinterpret_cast<void **>(&p), n * sizeof(double)));
      std::vector<double> want = random_values(n, 3);
      std::memcpy(p, want.data(), n * sizeof(double));
      DeviceBuffer<double> d(n);
      d.upload(p, n, s, 0, 4);
      check(same(download(d, n, s), want), "upload.pinned_source");
      GPUFORMATS_CUDA(cudaFreeHost(p));
    }
    { // the ring released (as at PetscFinalize) and set up again by the next staged upload
      release_upload_staging();
      const std::size_t    n    = 4 * chunk;
      std::vector<double>  want = random_values(n, 4);
      DeviceBuffer<double> d(n);
      d.upload(want.data(), n, s, 0, 2);
      check(same(download(d, n, s), want), "upload.after_release");
      release_upload_staging();
      release_upload_staging(); // twice: nothing left to free
    }
    GPUFORMATS_CUDA(cudaStreamDestroy(s));
  } catch (const Error &e) {
    check(false, "upload.no_cuda_error", e.what());
  }
  return gftest::failures() ? 1 : 0;
}
