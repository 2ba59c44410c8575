#include "halo/nccl_comm.hpp"

#include "core/csr.hpp" // Error

#include <dlfcn.h>
#include <vector>

#ifdef GPUFORMATS_HAVE_NCCL
  #include <nccl.h>
#endif

namespace gpuformats {

#ifdef GPUFORMATS_HAVE_NCCL
namespace {

// The NCCL functions the halo uses, resolved from the library loaded at run time.
struct NcclApi {
  decltype(&ncclGetVersion)     getVersion;
  decltype(&ncclGetUniqueId)    getUniqueId;
  decltype(&ncclCommInitRank)   commInitRank;
  decltype(&ncclCommDestroy)    commDestroy;
  decltype(&ncclGetErrorString) errorString;
  decltype(&ncclGroupStart)     groupStart;
  decltype(&ncclGroupEnd)       groupEnd;
  decltype(&ncclSend)           send;
  decltype(&ncclRecv)           recv;
};

struct Loaded {
  NcclApi     api{};
  std::string error; // empty: api is complete
};

const Loaded &loaded()
{
  static const Loaded l = [] {
    Loaded r;
    void  *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *e = dlerror();
      r.error       = std::string("libnccl.so.2 could not be loaded (") + (e ? e : "?") + "): put NCCL's library in the library path";
      return r;
    }
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && r.error.empty()) r.error = std::string("libnccl.so.2 lacks ") + name;
    };
    sym(r.api.getVersion, "ncclGetVersion");
    sym(r.api.getUniqueId, "ncclGetUniqueId");
    sym(r.api.commInitRank, "ncclCommInitRank");
    sym(r.api.commDestroy, "ncclCommDestroy");
    sym(r.api.errorString, "ncclGetErrorString");
    sym(r.api.groupStart, "ncclGroupStart");
    sym(r.api.groupEnd, "ncclGroupEnd");
    sym(r.api.send, "ncclSend");
    sym(r.api.recv, "ncclRecv");
    return r;
  }();
  return l;
}

const NcclApi &api()
{
  const Loaded &l = loaded();
  if (!l.error.empty()) throw Error(ErrorKind::unsupported, "NCCL: " + l.error);
  return l.api;
}

void nccl_check(ncclResult_t r, const char *what)
{
  if (r != ncclSuccess) throw Error(ErrorKind::device, std::string("NCCL ") + what + " failed: " + api().errorString(r));
}

// The cache: one NCCL communicator per group of ranks, kept with a duplicate of the first MPI
// communicator that asked (PETSc frees its inner communicators with their last object: keyed on
// them, every new matrix would pay NCCL's set-up, about a second). An MPI communicator congruent
// with a cached one (same ranks, same order) shares its NCCL communicator.
struct Cached {
  MPI_Comm   comm;
  ncclComm_t nccl;
};
std::vector<Cached> cache;

} // namespace

std::string nccl_load_error() { return loaded().error; }

std::string nccl_version()
{
  if (!loaded().error.empty()) return "";
  int v = 0;
  if (api().getVersion(&v) != ncclSuccess) return "";
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z from 2.9 on
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

void *nccl_comm_of(MPI_Comm comm)
{
  const NcclApi &a = api();
  for (const Cached &c : cache) {
    int cmp;
    MPI_Comm_compare(comm, c.comm, &cmp);
    if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT) return c.nccl;
  }
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id;
  ncclResult_t r = rank == 0 ? a.getUniqueId(&id) : ncclSuccess;
  // Every rank learns rank 0's outcome with the id, so that a failure there stops every rank.
  int ok = r == ncclSuccess;
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (!ok) throw Error(ErrorKind::device, rank == 0 ? std::string("ncclGetUniqueId failed: ") + a.errorString(r) : std::string("ncclGetUniqueId failed on rank 0"));
  MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, comm);
  ncclComm_t nc = nullptr;
  r             = a.commInitRank(&nc, size, id, rank);
  int mine = r == ncclSuccess, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
    if (nc) a.commDestroy(nc);
    throw Error(ErrorKind::device, mine ? std::string("ncclCommInitRank failed on another rank") : std::string("ncclCommInitRank failed: ") + a.errorString(r));
  }
  Cached c{MPI_COMM_NULL, nc};
  MPI_Comm_dup(comm, &c.comm);
  cache.push_back(c);
  return nc;
}

void nccl_exchange(void *nccl, const NcclTransfer *sends, int nsends, const NcclTransfer *recvs, int nrecvs, cudaStream_t stream)
{
  const NcclApi &a  = api();
  auto           nc = static_cast<ncclComm_t>(nccl);
  nccl_check(a.groupStart(), "ncclGroupStart");
  for (int i = 0; i < nrecvs; ++i) nccl_check(a.recv(recvs[i].buf, recvs[i].count, ncclDouble, recvs[i].peer, nc, stream), "ncclRecv");
  for (int i = 0; i < nsends; ++i) nccl_check(a.send(sends[i].buf, sends[i].count, ncclDouble, sends[i].peer, nc, stream), "ncclSend");
  nccl_check(a.groupEnd(), "ncclGroupEnd");
}

void nccl_release_all()
{
  for (Cached &c : cache) {
    api().commDestroy(c.nccl);
    MPI_Comm_free(&c.comm);
  }
  cache.clear();
}

#else // built without nccl.h

static const char *kNoNccl = "NCCL: this build of gpuformats has no NCCL support (nccl.h was not found at build time: set NCCL_INCLUDE, or run `make nccl-header`, and rebuild)";
std::string nccl_load_error() { return kNoNccl; }
std::string nccl_version() { return ""; }
void       *nccl_comm_of(MPI_Comm) { throw Error(ErrorKind::unsupported, kNoNccl); }
void        nccl_exchange(void *, const NcclTransfer *, int, const NcclTransfer *, int, cudaStream_t) { throw Error(ErrorKind::unsupported, kNoNccl); }
void        nccl_release_all() {}

#endif

} // namespace gpuformats
