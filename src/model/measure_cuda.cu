// The device side of the model: what the GPU is (strip size, L2) and the timing of one candidate's
// product, shared by the calibration and the advisor (and later the glue's -measure).
#include "core/device_buffer.hpp"
#include "formats/format.hpp"
#include "formats/partitioned/partitioned.hpp"
#include "model/auto.hpp"
#include "model/model.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpuformats::model {

bool device_info(DeviceInfo *info, std::string *why)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorString(e) : "no CUDA device";
    cudaGetLastError();
    return false;
  }
  int dev = 0;
  cudaDeviceProp p{};
  if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(e);
    return false;
  }
  info->name               = p.name;
  info->device             = dev;
  info->sm_count           = p.multiProcessorCount;
  info->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  info->cc_major           = p.major;
  info->cc_minor           = p.minor;
  info->l2_bytes           = p.l2CacheSize;
  info->memory_bytes       = (int64_t)p.totalGlobalMem;
  return true;
}

namespace {

// A block built on the device: a registered format with default parameters, or a partition. The extra streams are joined as the glue does
// (format.hpp StreamSet): they wait for streams[0] before and streams[0] waits for them after, so
// events on streams[0] time the whole product.
struct FormatRunner {
  std::unique_ptr<FormatBlock> block;
  std::vector<cudaStream_t>    streams;
  std::vector<cudaEvent_t>     events; // [0] fork, [1..] joins
  FormatRunner(std::unique_ptr<FormatBlock> built, int extra_streams, cudaStream_t s) : block(std::move(built))
  {
    streams.push_back(s);
    events.resize(1 + extra_streams, nullptr);
    for (auto &ev : events) GPUFORMATS_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    for (int i = 0; i < extra_streams; ++i) {
      cudaStream_t x;
      GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
      streams.push_back(x);
    }
  }
  ~FormatRunner()
  {
    for (size_t i = 1; i < streams.size(); ++i) cudaStreamDestroy(streams[i]);
    for (auto ev : events) cudaEventDestroy(ev);
  }
  void multiply(const double *x, double *y)
  {
    const StreamSet ss{streams.data(), (int)streams.size()};
    if (streams.size() > 1) {
      GPUFORMATS_CUDA(cudaEventRecord(events[0], streams[0]));
      for (size_t i = 1; i < streams.size(); ++i) GPUFORMATS_CUDA(cudaStreamWaitEvent(streams[i], events[0], 0));
    }
    block->spmv(1.0, x, 0.0, y, ss);
    for (size_t i = 1; i < streams.size(); ++i) {
      GPUFORMATS_CUDA(cudaEventRecord(events[i], streams[i]));
      GPUFORMATS_CUDA(cudaStreamWaitEvent(streams[0], events[i], 0));
    }
  }
};


// Median seconds of the products of the block `build(stream)` makes (measure_spmv's timing).
template <class Build>
double measure_block(const CsrView &A, int extra_streams, int reps, int warmup, double *rel_error, Build &&build)
{
  cudaStream_t s;
  GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  struct StreamGuard { // declared before the runner: the stream outlives it
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{s};
  auto r = std::make_unique<FormatRunner>(build(s), extra_streams, s);

  std::vector<double> x(std::max(A.ncols, 1));
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + 0.5 * std::sin(0.37 * (double)i); // no cancellation to hide errors
  DeviceBuffer<double> dx(x.size()), dy(std::max(A.nrows, 1));
  dx.upload(x.data(), x.size(), s);
  GPUFORMATS_CUDA(cudaStreamSynchronize(s));
  for (int k = 0; k < std::max(warmup, 1); ++k) r->multiply(dx.data(), dy.data());
  if (rel_error) {
    std::vector<double> got(A.nrows), want(A.nrows);
    GPUFORMATS_CUDA(cudaMemcpyAsync(got.data(), dy.data(), sizeof(double) * A.nrows, cudaMemcpyDeviceToHost, s));
    GPUFORMATS_CUDA(cudaStreamSynchronize(s));
    csr_spmv_host(A, 1.0, x.data(), 0.0, want.data());
    double num = 0, den = 0;
    for (int32_t i = 0; i < A.nrows; ++i) num += (got[i] - want[i]) * (got[i] - want[i]), den += want[i] * want[i];
    *rel_error = std::sqrt(num) / std::max(std::sqrt(den), 1e-300);
  }
  cudaEvent_t e0, e1;
  GPUFORMATS_CUDA(cudaEventCreate(&e0));
  GPUFORMATS_CUDA(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int k = 0; k < std::max(reps, 1); ++k) {
    GPUFORMATS_CUDA(cudaEventRecord(e0, s));
    r->multiply(dx.data(), dy.data());
    GPUFORMATS_CUDA(cudaEventRecord(e1, s));
    GPUFORMATS_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    GPUFORMATS_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(1e-3 * ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  r.reset();
  GPUFORMATS_CUDA(cudaStreamSynchronize(s));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

} // namespace

double measure_spmv(const CsrView &A, const std::string &name, int reps, int warmup, double *rel_error)
{
  const FormatOps *ops = candidate_ops(name);
  if (!ops) throw Error(ErrorKind::bad_input, "measure_spmv: no candidate \"" + name + "\" (a format root or " + kCusparseCsr + ")");
  return measure_block(A, ops->extra_streams, reps, warmup, rel_error, [&](cudaStream_t s) { return ops->build_cuda(A, default_params(*ops).data(), s, UploadContext{}); });
}

double measure_partitioned(const CsrView &A, const std::vector<partitioned::Part> &parts, bool concurrent, int reps, int warmup, double *rel_error)
{
  return measure_block(A, partitioned::extra_streams(parts, concurrent), reps, warmup, rel_error, [&](cudaStream_t s) {
    DeviceCsr d = upload_csr(A, s);
    return partitioned::build_uploaded(A, d, parts, s, concurrent);
  });
}

} // namespace gpuformats::model
