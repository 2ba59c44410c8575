// NCCL for the halo exchange: an optional dependency. The library is loaded at run time
// (dlopen "libnccl.so.2"), so the plugin builds, loads and runs where NCCL is absent; where nccl.h
// was absent at build time (GPUFORMATS_HAVE_NCCL undefined) every call below says so.
#pragma once
#include <cuda_runtime_api.h>
#include <mpi.h>

#include <cstddef>
#include <string>

namespace gpuformats {

// Empty when NCCL's library is loaded (the first call loads it); else why not.
std::string nccl_load_error();
// NCCL's version as "2.28.3", or "" where not loaded.
std::string nccl_version();
// The NCCL communicator of an MPI communicator (same ranks), created by the first use of its group
// of ranks and cached until nccl_release_all(): communicators congruent with it share it. Collective.
// Throws Error(device) naming NCCL's message on failure.
void *nccl_comm_of(MPI_Comm comm);
// One group of point-to-point transfers of doubles on `stream` (counts may be 0).
struct NcclTransfer {
  double *buf;
  std::size_t count;
  int peer;
};
void nccl_exchange(void *nccl, const NcclTransfer *sends, int nsends, const NcclTransfer *recvs, int nrecvs, cudaStream_t stream);
// Frees every cached NCCL communicator (collective over each): the glue calls it at PetscFinalize.
void nccl_release_all();

} // namespace gpuformats
