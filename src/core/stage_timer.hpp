// Times one GPU build or values-only refresh in two parts, with CUDA events recorded on the stream
// the work runs on (no host synchronisation when recording; the times are read only when asked):
//
//   stream:  [begin] host->device copies [uploaded] device work (build / scatter) [done]
//            |----------- upload ------------------|---------------- device -----------|
//
// "upload" is the transfer of the host CSR (or values) from host memory (core/host_upload.hpp:
// staged by host threads through pinned buffers, or a pageable cudaMemcpyAsync); "device" is all the
// stream does after it, up to the end of the build or refresh. Host work a builder interleaves
// with its kernels (allocations, reading back a count) shows in "device" as stream idle time, so
// it is an upper bound on the kernels' time: the conversion cost that a faster upload cannot remove.
#pragma once
#include <cuda_runtime_api.h>

namespace gpuformats {

class StageTimer {
public:
  StageTimer() = default;
  StageTimer(const StageTimer &)            = delete;
  StageTimer &operator=(const StageTimer &) = delete;
  ~StageTimer();

  void create(); // the three events, once (later calls do nothing); throws Error
  void forget(); // a new stage starts: no times until it completes (it may fail or run on the host)
  void upload_begin(cudaStream_t s);
  void upload_end(cudaStream_t s);
  void finish(cudaStream_t s); // the stage completed; measured from here on if its upload was marked
  bool measured() const { return measured_; }
  // Waits for the stage to finish on the device; seconds. Only when measured(). Throws Error.
  void read(double *upload_s, double *device_s) const;

private:
  cudaEvent_t begin_ = nullptr, uploaded_ = nullptr, done_ = nullptr;
  bool        uploaded_marked_ = false, measured_ = false;
};

} // namespace gpuformats
