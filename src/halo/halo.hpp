// The halo exchange of an mpi<fmt> product: the ghost values x[garray] that the off-process block
// reads, gathered from their owners. One entry point for the glue (gf_mpi.cpp); no PETSc types.
//
// Task mode (pJDS paper, section III): the exchange runs as a task on its own stream while the
// caller's stream computes the local block's product; the off-process product waits only for it.
//
//   caller stream s:  [fork]---- y = A_d x ------------------[wait ghosts]-- y += A_o g --
//   comm stream c:       \-- pack x[send_idx] -> send/recv -> (unpack) --/   (higher priority)
//
// Transports (Path):
//   nccl  device buffers, ncclSend/ncclRecv in one group on c: nothing on the host waits; one NCCL
//         communicator per MPI communicator (nccl_comm.cpp), its library loaded at run time
//   mpi   MPI point-to-point on the pattern: device buffers where the MPI is GPU-aware, else the
//         packed values staged through pinned host buffers (the host posts the messages after the
//         local product is queued, so the GPU computes while MPI moves the data); host memory on
//         the host backend
//   ipc   between GPUs of one node, copy engines read the owners' packed buffers through CUDA IPC
//         mappings, ordered by flags in device memory (ipc.hpp): no SM, no MPI, nothing on the host
//         waits; a peer on another node takes mpi within the same product
// (PETSc's VecScatter, the third choice, is the glue's: it needs no object here.)
//
// The pattern is built once per nonzero pattern; its send lists and receive slots are in the order
// in which each pair of ranks agrees (the glue takes them from a PetscSF, see gf_mpi.cpp).
#pragma once
#include "core/device_buffer.hpp"
#include "halo/ipc.hpp"
#include "halo/nccl_comm.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpuformats {

struct HaloPattern {
  int64_t              nlocal = 0, nghost = 0; // entries of x on this rank; ghost values
  std::vector<int>     send_peers;             // ranks this rank sends to, ...
  std::vector<int64_t> send_off;               // ... their ranges in send_idx (size peers + 1)
  std::vector<int32_t> send_idx;               // local indices of x, grouped by peer
  std::vector<int>     recv_peers;             // ranks this rank receives from, ...
  std::vector<int64_t> recv_off;               // ... their ranges in the receive order
  std::vector<int32_t> recv_slot;              // ghost slot of each received value (receive order)

  // Throws bad_input when the lists are inconsistent (indices out of range, offsets not monotone).
  void check() const;
  // Whether the received values are the ghosts in order (recv_slot[k] == k): then they land in
  // the ghost buffer directly, with no unpack.
  bool in_order() const;
};

enum class HaloPath { nccl, mpi, ipc };

// -mat_gpuformats_halo auto on the GPU takes ipc where every rank is on one node whose GPUs are
// peers (the glue, gf_mpi.cpp, with the numbers). Across nodes it takes nccl when some rank has at
// least this many ghost values, else mpi (staged where MPI is not GPU-aware). Measured on 2 H100 (NVLink NV18), one rank
// per GPU, bench/results/h100x2/multigpu/:
//   small halos, mpi wins or ties: SNES ex14 256^3 (65536 ghosts a rank), KSPSolve 1.96 s with mpi
//     against 3.08 s with nccl (--bind-to none; 4.1 s bound to one core a rank); products alone
//     tie (st7_256 382 / 388 us, st7_200 194 / 192 us, fem_10_80 122 / 126 us)
//   large halos, nccl wins: rmat_s22 391 us against 1793 us, rand_1_300 259 against 484 us
//     (millions of ghosts: the staged copies no longer hide behind the local product)
// The threshold sits between the two groups; no matrix measured lies near it.
constexpr int64_t kNcclMinGhosts = 1 << 20;
const char *halo_path_name(HaloPath p);

// Why NCCL cannot serve this communicator (empty: it can). Collective over comm: every rank gets
// the same answer. Reasons: built without nccl.h, libnccl.so.2 not found at run time, two ranks
// on one GPU (NCCL refuses them), a rank on the host backend (device == false).
std::string nccl_unusable_reason(MPI_Comm comm, bool device);

// Times summed over the measured products (CUDA events, device memory only); see Halo::measure.
struct HaloTimes {
  int64_t products  = 0; // measured products
  double  halo_s    = 0; // pack + exchange + unpack, from the fork
  double  local_s   = 0; // the local product, from the fork
  double  exposed_s = 0; // how long the caller's stream waited for the ghosts after its local product
  double  rest_s    = 0; // from the ghosts' arrival to the product's end (the off-process product): product_done()
  double  gap_s     = 0; // from a measured product's end to the next one's fork (the caller's work between them) ...
  int64_t gaps      = 0; // ... over this many pairs
  double  hidden() const { return halo_s > 0 ? 1.0 - exposed_s / halo_s : 1.0; } // fraction of the halo time hidden
};

// What a product asks of the host: calls to CUDA, the driver, NCCL and MPI (a pack or unpack counts
// one), and how many of them block the host until the GPU or a peer is done.
struct HaloCalls {
  uint32_t calls = 0, waits = 0;
};

class Halo {
public:
  // device: x and the ghosts in device memory (cuda backend); else host memory. gpu_aware_mpi:
  // device buffers may go to MPI. Local: allocates and uploads (a failure throws on this rank only).
  Halo(HaloPattern pattern, HaloPath path, bool device, bool gpu_aware_mpi);
  // Collective over comm, once, before the first begin(): its own MPI communicator (mpi, ipc) or
  // the communicator's NCCL one (nccl); ipc: the IPC mappings of the peers on this rank's node
  // (halo_nodes(comm, node_ranks)). A failure of nccl throws on every rank, of ipc on the failing
  // ranks (the caller makes it collective).
  void connect(MPI_Comm comm, int node_ranks = 0);
  ~Halo();
  Halo(const Halo &)            = delete;
  Halo &operator=(const Halo &) = delete;

  // A product: fork(s) marks where x is ready on the caller's stream s; the caller queues its local
  // product on s; begin(x) queues on the halo's stream (after the fork) all the exchange that needs
  // no host wait; end(s) finishes it. Local product first: it starts at once, and the exchange's
  // small kernels (on a higher-priority stream) slot in beside it.
  void fork(cudaStream_t s);
  void begin(const double *x);
  // The ghosts are complete for work queued on s after this returns (device: s waits for them).
  void end(cudaStream_t s);
  // Device memory, measure on: call between the local product and end() (marks its end on s).
  void local_done(cudaStream_t s);
  // Measure on: the whole product is queued on s (after the off-process product).
  void product_done(cudaStream_t s);
  const double *ghosts() const;

  HaloPath           path() const { return path_; }
  const HaloPattern &pattern() const { return p_; }
  bool               device() const { return device_; }
  bool               staged() const { return device_ && path_ != HaloPath::nccl && !gpu_aware_; } // MPI's peers through pinned host buffers
  int                ipc_peers() const { return ipc_ ? ipc_->peers() : 0; }
  int                mpi_peers() const; // peer ranks reached by MPI (mpi: all; ipc: those on other nodes)
  // CUDA events around each product (4 per product, read at the next begin): the hidden fraction.
  void      measure(bool on) { measure_ = on && device_; }
  HaloTimes times();
  HaloCalls last_product() const { return last_; } // the last product's calls and host waits
  std::size_t device_bytes() const;

private:
  void post_mpi(const double *sendbuf, double *recvbuf); // Irecv/Isend to the MPI peers (waited for in end())
  void finish_mpi(); // end(): the MPI peers' messages, their upload (staged) and the unpack
  void stage();      // the pinned buffers of the staged MPI peers
  void collect();                                  // accumulates the last measured product

  MPI_Comm    comm_ = MPI_COMM_NULL; // mpi path: a duplicate of the matrix's, so our messages meet no other's
  HaloPattern p_;
  HaloPath    path_;
  bool        device_, gpu_aware_, in_order_;
  bool        measure_ = false, pending_ = false;
  void       *nccl_ = nullptr;                    // ncclComm_t, owned by the communicator's cache
  std::vector<NcclTransfer> nccl_sends_, nccl_recvs_; // nccl: each product's transfers (connect())
  cudaStream_t stream_ = nullptr;                 // c
  cudaEvent_t  fork_ = nullptr, join_ = nullptr;
  cudaEvent_t  ev_[4] = {};                       // measure: fork, exchange done, local done, ghosts waited for
  cudaEvent_t  end_[2] = {};                      // measure: the product's end (product_done), alternating
  int          end_now_ = -1;                     // end_ of the product being measured (-1: none recorded)
  int          end_prev_ = -1;                    // end_ of the previous measured product (-1: none)
  DeviceBuffer<int32_t> d_send_idx_, d_recv_slot_;
  DeviceBuffer<double>  d_send_, d_recv_, d_ghost_;
  std::vector<double>   h_send_, h_recv_, h_ghost_; // host backend
  double               *pin_send_ = nullptr, *pin_recv_ = nullptr; // staged: pinned
  std::vector<MPI_Request> reqs_;
  std::unique_ptr<IpcLinks> ipc_;                 // ipc
  std::vector<char>     send_ipc_, recv_ipc_;     // ipc: per peer, reached by IPC (else MPI)
  bool                  any_mpi_ = true;          // some peer takes MPI
  cudaEvent_t           packed_ = nullptr;        // ipc with MPI peers: the pack (and its staging) done
  HaloTimes             sum_;
  uint32_t              products_ = 0;        // begun (GPUFORMATS_HALO_TRACE)
  HaloCalls             cur_, last_;          // this product's calls so far; the last complete one's
};

} // namespace gpuformats
