// The copy-engine halo between GPUs of one node (HaloPath::ipc): CUDA IPC handles exchanged once over
// MPI, then every product moves each peer's ghost values with one cudaMemcpyAsync on the halo's
// stream, a copy engine reading the owner's packed buffer over NVLink: no SM, no host wait, no MPI.
// Order between two ranks comes from 32-bit flags in device memory, written with
// cuStreamWriteValue32 and awaited with cuStreamWaitValue32 (stream memory operations, resolved from
// the driver at run time):
//
//   owner o (sends to r)                       reader r (receives from o)
//   wait copied[r] >= seq-1  (r has read seq-1)
//   pack x[send_idx] -> send
//   write ready@r = seq  --------------------> wait ready[o] >= seq
//                                              copy send@o[r's slice] -> ghosts   (copy engine)
//   copied[r] = seq  <------------------------ write copied@o = seq
//
// Pull, not push: the values are read where the owner wrote them, after its fenced flag, so no
// remote data write can overtake the flag that announces it. Flags compare cyclically (wrap-safe).
// Peers on another node (or on another group of -mat_gpuformats_halo_node_ranks) take MPI instead.
#pragma once
#include "core/device_buffer.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpuformats {

struct HaloPattern;

// Each rank's node, as the lowest rank on it: the ranks that share memory (MPI_Comm_split_type), or
// with node_ranks > 0 groups of node_ranks consecutive ranks (to try mixed IPC and MPI peers on one
// machine). Collective.
std::vector<int> halo_nodes(MPI_Comm comm, int node_ranks);

// Why the ipc path cannot serve this communicator (empty: it can). Collective: every rank gets the
// same answer. Reasons: a rank on the host backend, the driver's stream memory operations missing,
// two GPUs of one node without peer access or not visible to each other's ranks.
std::string ipc_unusable_reason(MPI_Comm comm, bool device, const std::vector<int> &nodes);

// Which two ranks of one node share a GPU (empty: none does), the same answer on every rank.
// Collective. Their contexts take turns on that GPU, and a product that waits on the device for the
// other rank's copy (ipc) waits for a turn each time.
std::string ranks_sharing_gpu(MPI_Comm comm, const std::vector<int> &nodes);

class IpcLinks {
public:
  // Collective over comm (every rank, with its own pattern). send_ipc[i] / recv_ipc[j]: whether
  // send peer i / receive peer j is reached by IPC. send: the packed buffer (cudaMalloc'd, whole);
  // a failure throws on this rank only, after every message.
  IpcLinks(MPI_Comm comm, const HaloPattern &p, const std::vector<char> &send_ipc, const std::vector<char> &recv_ipc, const double *send);
  // Frees this rank's exported buffers: call retire() first (CUDA: freeing memory that a peer still
  // maps is undefined, and a freed address handed out again may meet the peer's old mapping).
  ~IpcLinks();
  IpcLinks(const IpcLinks &)            = delete;
  IpcLinks &operator=(const IpcLinks &) = delete;

  // One product, all queued on s: before the pack (the readers have copied the last product),
  // after it (their slices are ready), then this rank's reads into recv (the receive order).
  // Each returns its calls to the driver and CUDA.
  uint32_t before_pack(cudaStream_t s);
  uint32_t after_pack(cudaStream_t s);
  uint32_t fetch(cudaStream_t s, double *recv);
  int  peers() const { return (int)peers_.size(); } // distinct peer ranks reached by IPC
  // Teardown, once this rank's stream is idle: closes its mappings of the peers' memory, tells each
  // peer, and waits (host, at most 10 s) until every peer has closed its mappings of ours (so their
  // last reads are done; a peer whose set-up failed said so from the constructor). Point-to-point with the IPC peers only: they retire the same Halo (a
  // matrix's destruction is collective). false: a peer never answered (it failed); then this
  // rank's exported memory must never be freed.
  bool retire(MPI_Comm comm);

private:
  const HaloPattern           &p_;
  std::vector<char>            send_ipc_, recv_ipc_;
  uint32_t                     seq_ = 0; // products begun
  std::vector<int>             peers_;  // distinct peer ranks reached by IPC
  DeviceBuffer<uint32_t>       flags_;   // [ready from receive peer j][copied by send peer i]
  std::vector<uint32_t *>      ready_at_, copied_at_; // remote flags: per send peer, per receive peer
  std::vector<const double *>  source_;               // per receive peer: its slice in the owner's buffer
  std::vector<void *>          mapped_;               // opened handles, closed at the end
};

} // namespace gpuformats
