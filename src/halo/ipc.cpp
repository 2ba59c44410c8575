#include "halo/ipc.hpp"

#include "halo/halo.hpp"

#include <cuda.h> // the stream memory operations' types (the functions come from the driver at run time)

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>

namespace gpuformats {

namespace {

using MemOp = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

struct MemOps {
  MemOp       wait = nullptr, write = nullptr;
  std::string error; // empty: both found
};

const MemOps &memops()
{
  static const MemOps m = [] {
    MemOps r;
    auto   get = [&](const char *name) -> MemOp {
      void                           *f = nullptr;
      cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
      if (cudaGetDriverEntryPointByVersion(name, &f, 12000, cudaEnableDefault, &q) != cudaSuccess || q != cudaDriverEntryPointSuccess || !f) {
        cudaGetLastError();
        if (r.error.empty()) r.error = std::string("the CUDA driver lacks ") + name + " (stream memory operations)";
        return nullptr;
      }
      return reinterpret_cast<MemOp>(f);
    };
    r.wait  = get("cuStreamWaitValue32");
    r.write = get("cuStreamWriteValue32");
    return r;
  }();
  return m;
}

void memop(MemOp fn, const char *what, cudaStream_t s, const uint32_t *flag, uint32_t value, unsigned flags)
{
  const CUresult r = fn((CUstream)s, (CUdeviceptr)(uintptr_t)flag, value, flags);
  if (r != CUDA_SUCCESS) throw Error(ErrorKind::device, std::string(what) + " failed (CUresult " + std::to_string((int)r) + ")");
}

// What a rank tells each IPC peer once: where the peer writes its flag, and (owner to reader) the
// packed buffer and the reader's slice of it. flag_index < 0: this rank's set-up failed.
struct Offer {
  cudaIpcMemHandle_t flags{}, buf{};
  int64_t            buf_offset = 0;
  int32_t            flag_index = -1;
  int32_t            has_buf    = 0;
};
constexpr int kOwnerTag = 7301, kReaderTag = 7302, kClosedTag = 7303;

// How long teardown waits for the peers (one that failed never answers).
constexpr double kRetireSeconds = 10.0;

// Every rank's GPU as its PCI bus id, in rank order; empty for a rank that did not ask or could not
// name it. Collective.
struct GpuNames {
  static constexpr std::size_t kChars = 32;
  std::vector<char>            all;
  int                          dev   = -1;
  bool                         named = false; // this rank's
  const char                  *of(int rank) const { return &all[(std::size_t)rank * kChars]; }
};

GpuNames gather_gpu_names(MPI_Comm comm, bool ask)
{
  GpuNames g;
  int      size;
  char     bus[GpuNames::kChars] = {};
  MPI_Comm_size(comm, &size);
  if (ask) {
    g.named = cudaGetDevice(&g.dev) == cudaSuccess && cudaDeviceGetPCIBusId(bus, sizeof bus, g.dev) == cudaSuccess;
    if (!g.named) cudaGetLastError(), bus[0] = 0;
  }
  g.all.resize((std::size_t)size * sizeof bus);
  MPI_Allgather(bus, sizeof bus, MPI_CHAR, g.all.data(), sizeof bus, MPI_CHAR, comm); // every rank sees the same list
  return g;
}

} // namespace

std::vector<int> halo_nodes(MPI_Comm comm, int node_ranks)
{
  int rank, size, node;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (node_ranks > 0) node = rank / node_ranks * node_ranks;
  else {
    MPI_Comm shm;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Allreduce(&rank, &node, 1, MPI_INT, MPI_MIN, shm);
    MPI_Comm_free(&shm);
  }
  std::vector<int> all((std::size_t)size);
  MPI_Allgather(&node, 1, MPI_INT, all.data(), 1, MPI_INT, comm);
  return all;
}

std::string ipc_unusable_reason(MPI_Comm comm, bool device, const std::vector<int> &nodes)
{
  // 0: usable; 1: a rank on the host backend; 2: no stream memory operations; 3: GPUs of a node not peers
  int         code = 0, worst = 0, rank, size;
  std::string mine;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (!device) code = 1, mine = "a rank runs on the host backend (IPC needs device vectors and the cuda backend)";
  else if (!(mine = memops().error).empty()) code = 2;
  const GpuNames gpus = gather_gpu_names(comm, device);
  if (device && !gpus.named && !code) code = 3, mine = "rank " + std::to_string(rank) + " could not name its GPU";
  for (int k = 0; k < size && !code; ++k) {
    const char *other = gpus.of(k);
    if (k == rank || nodes[k] != nodes[rank] || !other[0] || !std::strcmp(other, gpus.of(rank))) continue; // another node, or the same GPU
    int od, can = 0;
    if (cudaDeviceGetByPCIBusId(&od, other) != cudaSuccess) {
      cudaGetLastError();
      code = 3, mine = "the GPU of rank " + std::to_string(k) + " (" + other + ") is not visible to rank " + std::to_string(rank) + " (CUDA_VISIBLE_DEVICES hides it)";
    } else if (cudaDeviceCanAccessPeer(&can, gpus.dev, od) != cudaSuccess || !can) {
      cudaGetLastError();
      code = 3, mine = "the GPUs of ranks " + std::to_string(rank) + " and " + std::to_string(k) + " are not peers (no P2P access)";
    }
  }
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst == 0) return "";
  if (worst == code) return mine;
  return worst == 1 ? "a rank runs on the host backend (IPC needs device vectors and the cuda backend)" : worst == 2 ? "the CUDA driver of another rank lacks stream memory operations" : "the GPUs of two ranks of one node are not peers";
}

std::string ranks_sharing_gpu(MPI_Comm comm, const std::vector<int> &nodes)
{
  int size;
  MPI_Comm_size(comm, &size);
  const GpuNames gpus = gather_gpu_names(comm, true);
  for (int i = 0; i < size; ++i)
    for (int k = i + 1; k < size; ++k) {
      const char *a = gpus.of(i), *b = gpus.of(k);
      if (a[0] && nodes[i] == nodes[k] && !std::strcmp(a, b)) return "ranks " + std::to_string(i) + " and " + std::to_string(k) + " share the GPU " + a;
    }
  return "";
}

IpcLinks::IpcLinks(MPI_Comm comm, const HaloPattern &p, const std::vector<char> &send_ipc, const std::vector<char> &recv_ipc, const double *send) : p_(p), send_ipc_(send_ipc), recv_ipc_(recv_ipc)
{
  const std::size_t ns = p.send_peers.size(), nr = p.recv_peers.size();
  ready_at_.assign(ns, nullptr);
  copied_at_.assign(nr, nullptr);
  source_.assign(nr, nullptr);
  // Local set-up first; its failure still answers every peer (flag_index -1), so none waits forever.
  std::string        failure;
  cudaIpcMemHandle_t hflags{}, hbuf{};
  const bool         has_buf = send && !p.send_idx.empty();
  try {
    if (!memops().error.empty()) throw Error(ErrorKind::unsupported, memops().error);
    if (const char *f = std::getenv("GPUFORMATS_HALO_IPC_FAIL")) { // a set-up failure on this rank, for tests
      int me;
      MPI_Comm_rank(comm, &me);
      if (std::atoi(f) == me) throw Error(ErrorKind::device, "GPUFORMATS_HALO_IPC_FAIL: the set-up fails here on purpose");
    }
    flags_.resize(nr + ns + 1);
    cudaStream_t z; // zeroed before any peer learns of them (not on the legacy stream, behind other work)
    GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&z, cudaStreamNonBlocking));
    const cudaError_t set = cudaMemsetAsync(flags_.data(), 0, flags_.bytes(), z), wait = cudaStreamSynchronize(z);
    cudaStreamDestroy(z);
    GPUFORMATS_CUDA(set);
    GPUFORMATS_CUDA(wait);
    GPUFORMATS_CUDA(cudaIpcGetMemHandle(&hflags, flags_.data()));
    if (has_buf) GPUFORMATS_CUDA(cudaIpcGetMemHandle(&hbuf, const_cast<double *>(send)));
  } catch (const Error &e) {
    failure = e.what();
  }
  std::vector<Offer>       to_reader(ns), to_owner(nr), from_owner(nr), from_reader(ns);
  std::vector<MPI_Request> reqs;
  for (std::size_t j = 0; j < nr; ++j)
    if (recv_ipc[j]) MPI_Irecv(&from_owner[j], sizeof(Offer), MPI_BYTE, p.recv_peers[j], kOwnerTag, comm, &reqs.emplace_back());
  for (std::size_t i = 0; i < ns; ++i)
    if (send_ipc[i]) MPI_Irecv(&from_reader[i], sizeof(Offer), MPI_BYTE, p.send_peers[i], kReaderTag, comm, &reqs.emplace_back());
  for (std::size_t i = 0; i < ns; ++i)
    if (send_ipc[i]) {
      to_reader[i] = {hflags, hbuf, p.send_off[i], failure.empty() ? (int32_t)(nr + i) : -1, has_buf};
      MPI_Isend(&to_reader[i], sizeof(Offer), MPI_BYTE, p.send_peers[i], kOwnerTag, comm, &reqs.emplace_back());
    }
  for (std::size_t j = 0; j < nr; ++j)
    if (recv_ipc[j]) {
      to_owner[j] = {hflags, {}, 0, failure.empty() ? (int32_t)j : -1, 0};
      MPI_Isend(&to_owner[j], sizeof(Offer), MPI_BYTE, p.recv_peers[j], kReaderTag, comm, &reqs.emplace_back());
    }
  MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE);
  // A rank whose set-up fails maps nothing of its peers': it says so at once (a peer that did set up
  // waits for it when it retires), without waiting, as its peers may be in a collective by then.
  auto gone = [&] {
    static const char closed = 0;
    std::set<int>     peers;
    for (std::size_t i = 0; i < ns; ++i)
      if (send_ipc[i]) peers.insert(p.send_peers[i]);
    for (std::size_t j = 0; j < nr; ++j)
      if (recv_ipc[j]) peers.insert(p.recv_peers[j]);
    for (int peer : peers) {
      MPI_Request r;
      MPI_Isend(&closed, 1, MPI_CHAR, peer, kClosedTag, comm, &r);
      MPI_Request_free(&r);
    }
  };
  if (!failure.empty()) {
    gone();
    throw Error(ErrorKind::device, "the ipc halo could not be set up: " + failure);
  }

  // CUDA maps an exported allocation once per process: one mapping per peer's flags.
  std::map<int, uint32_t *> flags_of;
  auto                      open = [&](const cudaIpcMemHandle_t &h) {
    void *ptr = nullptr;
    GPUFORMATS_CUDA(cudaIpcOpenMemHandle(&ptr, h, cudaIpcMemLazyEnablePeerAccess));
    mapped_.push_back(ptr);
    return ptr;
  };
  auto peer_flags = [&](int peer, const Offer &o) {
    if (o.flag_index < 0) throw Error(ErrorKind::device, "the ipc halo could not be set up on rank " + std::to_string(peer));
    auto it = flags_of.find(peer);
    if (it == flags_of.end()) it = flags_of.emplace(peer, static_cast<uint32_t *>(open(o.flags))).first;
    return it->second + o.flag_index;
  };
  try {
    for (std::size_t i = 0; i < ns; ++i)
      if (send_ipc[i]) ready_at_[i] = peer_flags(p.send_peers[i], from_reader[i]);
    for (std::size_t j = 0; j < nr; ++j)
      if (recv_ipc[j]) {
        copied_at_[j] = peer_flags(p.recv_peers[j], from_owner[j]);
        if (p.recv_off[j + 1] > p.recv_off[j]) {
          if (!from_owner[j].has_buf) throw Error(ErrorKind::bad_input, "the ipc halo: rank " + std::to_string(p.recv_peers[j]) + " sends nothing that this rank expects");
          source_[j] = static_cast<const double *>(open(from_owner[j].buf)) + from_owner[j].buf_offset;
        }
      }
  } catch (...) {
    for (void *ptr : mapped_) cudaIpcCloseMemHandle(ptr);
    gone();
    throw;
  }
  for (const auto &f : flags_of) peers_.push_back(f.first);
}

bool IpcLinks::retire(MPI_Comm comm)
{
  for (void *ptr : mapped_) cudaIpcCloseMemHandle(ptr);
  cudaGetLastError();
  mapped_.clear();
  std::vector<MPI_Request> reqs;
  char                     mine = 0;
  std::vector<char>        theirs(peers_.size());
  for (std::size_t k = 0; k < peers_.size(); ++k) MPI_Irecv(&theirs[k], 1, MPI_CHAR, peers_[k], kClosedTag, comm, &reqs.emplace_back());
  for (int peer : peers_) MPI_Isend(&mine, 1, MPI_CHAR, peer, kClosedTag, comm, &reqs.emplace_back());
  const auto t0   = std::chrono::steady_clock::now();
  int        done = 0;
  while (MPI_Testall((int)reqs.size(), reqs.data(), &done, MPI_STATUSES_IGNORE) == MPI_SUCCESS && !done) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > kRetireSeconds) {
      for (MPI_Request &r : reqs)
        if (r != MPI_REQUEST_NULL) MPI_Cancel(&r), MPI_Request_free(&r);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return done != 0;
}

IpcLinks::~IpcLinks()
{
  for (void *ptr : mapped_) cudaIpcCloseMemHandle(ptr);
  cudaGetLastError();
}

uint32_t IpcLinks::before_pack(cudaStream_t s)
{
  uint32_t n = 0;
  ++seq_;
  for (std::size_t i = 0; i < send_ipc_.size(); ++i)
    if (send_ipc_[i]) memop(memops().wait, "cuStreamWaitValue32", s, flags_.data() + p_.recv_peers.size() + i, seq_ - 1, CU_STREAM_WAIT_VALUE_GEQ), ++n;
  return n;
}

uint32_t IpcLinks::after_pack(cudaStream_t s)
{
  uint32_t n = 0;
  for (std::size_t i = 0; i < send_ipc_.size(); ++i)
    if (send_ipc_[i]) memop(memops().write, "cuStreamWriteValue32", s, ready_at_[i], seq_, CU_STREAM_WRITE_VALUE_DEFAULT), ++n;
  return n;
}

uint32_t IpcLinks::fetch(cudaStream_t s, double *recv)
{
  uint32_t n = 0;
  for (std::size_t j = 0; j < recv_ipc_.size(); ++j) {
    if (!recv_ipc_[j]) continue;
    memop(memops().wait, "cuStreamWaitValue32", s, flags_.data() + j, seq_, CU_STREAM_WAIT_VALUE_GEQ);
    const int64_t count = p_.recv_off[j + 1] - p_.recv_off[j];
    if (count) GPUFORMATS_CUDA(cudaMemcpyAsync(recv + p_.recv_off[j], source_[j], (std::size_t)count * sizeof(double), cudaMemcpyDefault, s)), ++n;
    memop(memops().write, "cuStreamWriteValue32", s, copied_at_[j], seq_, CU_STREAM_WRITE_VALUE_DEFAULT);
    n += 2;
  }
  return n;
}

} // namespace gpuformats
