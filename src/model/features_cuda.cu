// The model's strips on the GPU: the template of features_device.cuh on CudaSystem, from a CSR
// already in device memory (the one uploaded for the build), with CUDA and Thrust failures mapped
// to Error as the formats' device builders map them.
#include "features_device.cuh"

#include <thrust/system_error.h>

#include <new>
#include <string>

namespace gpuformats::model {

std::vector<Strip> strips_of_device(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t ncols, int64_t nnz, int32_t strip_rows, int32_t sector_stride, cudaStream_t stream, bool offset_view)
{
  try {
    return features::strips_of_system(CudaSystem{stream}, rowptr, colidx, nrows, ncols, nnz, strip_rows, sector_stride, offset_view);
  } catch (const Error &) {
    throw;
  } catch (const thrust::system_error &e) { // Thrust's own temporaries and launches
    cudaGetLastError();
    throw Error(e.code().value() == cudaErrorMemoryAllocation ? ErrorKind::out_of_memory : ErrorKind::device, std::string("model strip features (device): ") + e.what());
  } catch (const std::bad_alloc &e) {
    cudaGetLastError();
    throw Error(ErrorKind::out_of_memory, std::string("model strip features (device): out of memory (") + e.what() + ")");
  }
}

} // namespace gpuformats::model
