#include "stage_timer.hpp"
#include "device_buffer.hpp"

namespace gpuformats {

StageTimer::~StageTimer()
{
  for (cudaEvent_t e : {begin_, uploaded_, done_})
    if (e) cudaEventDestroy(e);
}

void StageTimer::create()
{
  for (cudaEvent_t *e : {&begin_, &uploaded_, &done_})
    if (!*e) GPUFORMATS_CUDA(cudaEventCreate(e)); // with timing, unlike the fork/join events
}

void StageTimer::forget() { uploaded_marked_ = measured_ = false; }

void StageTimer::upload_begin(cudaStream_t s) { GPUFORMATS_CUDA(cudaEventRecord(begin_, s)); }

void StageTimer::upload_end(cudaStream_t s)
{
  GPUFORMATS_CUDA(cudaEventRecord(uploaded_, s));
  uploaded_marked_ = true;
}

void StageTimer::finish(cudaStream_t s)
{
  GPUFORMATS_CUDA(cudaEventRecord(done_, s));
  measured_ = uploaded_marked_;
}

void StageTimer::read(double *upload_s, double *device_s) const
{
  float up_ms, dev_ms;
  GPUFORMATS_CUDA(cudaEventSynchronize(done_));
  GPUFORMATS_CUDA(cudaEventElapsedTime(&up_ms, begin_, uploaded_));
  GPUFORMATS_CUDA(cudaEventElapsedTime(&dev_ms, uploaded_, done_));
  *upload_s = 1e-3 * up_ms;
  *device_s = 1e-3 * dev_ms;
}

} // namespace gpuformats
