#include "halo/halo.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

namespace gpuformats {

// GPUFORMATS_HALO_TRACE=1: each Halo's life and products on stderr (hangs between ranks).
static bool trace_on()
{
  static const bool on = std::getenv("GPUFORMATS_HALO_TRACE") != nullptr;
  return on;
}
// Each product's calls to CUDA, the driver, NCCL and MPI, and the host's waits among them.
#define HALO_CALL(call) (cur_.calls++, GPUFORMATS_CUDA(call))
#define HALO_WAIT(call) (cur_.calls++, cur_.waits++, GPUFORMATS_CUDA(call))
#define HALO_TRACE(...) \
  do { \
    if (trace_on()) { \
      int r_ = -1; \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_); \
      std::fprintf(stderr, "[halo %d %p] ", r_, (const void *)this); \
      std::fprintf(stderr, __VA_ARGS__); \
      std::fputc('\n', stderr); \
    } \
  } while (0)

// halo_cuda.cu: the pack (x[idx] -> out) and unpack (in -> ghost[slot]) on a stream (Thrust).
void halo_pack_cuda(const int32_t *idx, std::size_t n, const double *x, double *out, cudaStream_t s);
void halo_unpack_cuda(const double *in, std::size_t n, const int32_t *slot, double *ghost, cudaStream_t s);

const char *halo_path_name(HaloPath p) { return p == HaloPath::nccl ? "nccl" : p == HaloPath::ipc ? "ipc" : "mpi"; }

void HaloPattern::check() const
{
  auto ranges = [](const std::vector<int> &peers, const std::vector<int64_t> &off, std::size_t n, const char *what) {
    if (off.size() != peers.size() + 1 || off.front() != 0 || (std::size_t)off.back() != n) throw Error(ErrorKind::bad_input, std::string("halo pattern: bad ") + what + " offsets");
    for (std::size_t i = 0; i < peers.size(); ++i)
      if (off[i + 1] < off[i]) throw Error(ErrorKind::bad_input, std::string("halo pattern: ") + what + " offsets decrease");
  };
  ranges(send_peers, send_off, send_idx.size(), "send");
  ranges(recv_peers, recv_off, recv_slot.size(), "receive");
  for (int32_t i : send_idx)
    if (i < 0 || i >= nlocal) throw Error(ErrorKind::bad_input, "halo pattern: a send index is out of range");
  for (int32_t g : recv_slot)
    if (g < 0 || g >= nghost) throw Error(ErrorKind::bad_input, "halo pattern: a ghost slot is out of range");
}

bool HaloPattern::in_order() const
{
  if ((int64_t)recv_slot.size() != nghost) return false;
  for (std::size_t k = 0; k < recv_slot.size(); ++k)
    if (recv_slot[k] != (int32_t)k) return false;
  return true;
}

std::string nccl_unusable_reason(MPI_Comm comm, bool device)
{
  // 0: usable; 1: a rank on the host backend; 2: NCCL not loadable; 3: two ranks on one GPU
  int         code = 0, worst = 0, rank, size;
  std::string mine;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (!device) code = 1, mine = "a rank runs on the host backend (NCCL needs device vectors and the cuda backend)";
  else if (!(mine = nccl_load_error()).empty()) code = 2;
  // The GPU of every rank, by UUID: NCCL refuses two ranks on one GPU.
  char uuid[16] = {};
  if (device) {
    int            dev;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) std::memcpy(uuid, prop.uuid.bytes, 16);
    cudaGetLastError();
  }
  std::vector<char> all((std::size_t)size * 16);
  MPI_Allgather(uuid, 16, MPI_CHAR, all.data(), 16, MPI_CHAR, comm);
  const char zero[16] = {};
  for (int i = 0; i < size && code < 3; ++i)
    for (int j = i + 1; j < size; ++j)
      if (std::memcmp(&all[16 * i], zero, 16) && !std::memcmp(&all[16 * i], &all[16 * j], 16)) {
        code = 3, mine = "ranks " + std::to_string(i) + " and " + std::to_string(j) + " share one GPU (NCCL needs one GPU per rank)";
        break;
      }
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst == 0) return "";
  if (worst == code) return mine;
  return worst == 1 ? "a rank runs on the host backend (NCCL needs device vectors and the cuda backend)" : "NCCL could not be loaded on another rank";
}

Halo::Halo(HaloPattern pattern, HaloPath path, bool device, bool gpu_aware_mpi) : p_(std::move(pattern)), path_(path), device_(device), gpu_aware_(gpu_aware_mpi)
{
  p_.check();
  in_order_ = p_.in_order();
  if (path_ != HaloPath::mpi && !device_) throw Error(ErrorKind::unsupported, std::string("the ") + halo_path_name(path_) + " halo needs the cuda backend");
  const std::size_t nsend = p_.send_idx.size(), nrecv = p_.recv_slot.size();
  if (!device_) {
    h_send_.resize(nsend);
    h_ghost_.resize((std::size_t)p_.nghost);
    if (!in_order_) h_recv_.resize(nrecv);
    return;
  }
  // The highest priority: the pack and NCCL's kernels, queued after the local product's, take SMs
  // as that product's blocks retire instead of waiting for all of them (no overlap otherwise).
  int least, greatest;
  GPUFORMATS_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  GPUFORMATS_CUDA(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
  GPUFORMATS_CUDA(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
  GPUFORMATS_CUDA(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
  for (cudaEvent_t &e : ev_) GPUFORMATS_CUDA(cudaEventCreate(&e));
  for (cudaEvent_t &e : end_) GPUFORMATS_CUDA(cudaEventCreate(&e));
  d_send_idx_.resize(nsend);
  d_send_idx_.upload(p_.send_idx.data(), nsend, stream_);
  d_send_.resize(nsend);
  d_ghost_.resize((std::size_t)p_.nghost);
  if (!in_order_) {
    d_recv_slot_.resize(nrecv);
    d_recv_slot_.upload(p_.recv_slot.data(), nrecv, stream_);
    d_recv_.resize(nrecv);
  }
  if (staged() && path_ == HaloPath::mpi) stage();
  GPUFORMATS_CUDA(cudaStreamSynchronize(stream_));
}

void Halo::stage()
{
  GPUFORMATS_CUDA(cudaMallocHost((void **)&pin_send_, std::max<std::size_t>(p_.send_idx.size(), 1) * sizeof(double)));
  GPUFORMATS_CUDA(cudaMallocHost((void **)&pin_recv_, std::max<std::size_t>(p_.recv_slot.size(), 1) * sizeof(double)));
}

void Halo::connect(MPI_Comm comm, int node_ranks)
{
  if (path_ == HaloPath::nccl) {
    nccl_ = nccl_comm_of(comm);
    // The transfers of every product: the buffers and counts are fixed with the pattern.
    double *recv = in_order_ ? d_ghost_.data() : d_recv_.data();
    for (std::size_t i = 0; i < p_.send_peers.size(); ++i) nccl_sends_.push_back({d_send_.data() + p_.send_off[i], (std::size_t)(p_.send_off[i + 1] - p_.send_off[i]), p_.send_peers[i]});
    for (std::size_t i = 0; i < p_.recv_peers.size(); ++i) nccl_recvs_.push_back({recv + p_.recv_off[i], (std::size_t)(p_.recv_off[i + 1] - p_.recv_off[i]), p_.recv_peers[i]});
    return;
  }
  if (comm_ == MPI_COMM_NULL) MPI_Comm_dup(comm, &comm_);
  if (path_ != HaloPath::ipc || ipc_) return;
  const std::vector<int> nodes = halo_nodes(comm_, node_ranks);
  int                    me;
  MPI_Comm_rank(comm_, &me);
  send_ipc_.resize(p_.send_peers.size());
  recv_ipc_.resize(p_.recv_peers.size());
  any_mpi_ = false;
  for (std::size_t i = 0; i < send_ipc_.size(); ++i) any_mpi_ |= !(send_ipc_[i] = nodes[p_.send_peers[i]] == nodes[me]);
  for (std::size_t j = 0; j < recv_ipc_.size(); ++j) any_mpi_ |= !(recv_ipc_[j] = nodes[p_.recv_peers[j]] == nodes[me]);
  ipc_ = std::make_unique<IpcLinks>(comm_, p_, send_ipc_, recv_ipc_, d_send_.data());
  HALO_TRACE("connected: %zu send peers, %zu receive peers, %d by IPC, any mpi %d", p_.send_peers.size(), p_.recv_peers.size(), ipc_->peers(), (int)any_mpi_);
  if (any_mpi_) {
    if (staged()) stage();
    GPUFORMATS_CUDA(cudaEventCreateWithFlags(&packed_, cudaEventDisableTiming));
  }
}

int Halo::mpi_peers() const
{
  if (path_ == HaloPath::nccl) return 0;
  std::set<int> peers;
  for (std::size_t i = 0; i < p_.send_peers.size(); ++i)
    if (send_ipc_.empty() || !send_ipc_[i]) peers.insert(p_.send_peers[i]);
  for (std::size_t j = 0; j < p_.recv_peers.size(); ++j)
    if (recv_ipc_.empty() || !recv_ipc_[j]) peers.insert(p_.recv_peers[j]);
  return (int)peers.size();
}

// Whether a stream's work finishes within `seconds` (an ipc stream waits on peers that may be gone).
static bool settles(cudaStream_t s, double seconds)
{
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(s);
    if (e != cudaErrorNotReady) return cudaGetLastError(), e == cudaSuccess;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

Halo::~Halo()
{
  bool settled = true;
  if (stream_ && ipc_) settled = settles(stream_, 10.0);
  else if (stream_) cudaStreamSynchronize(stream_);
  if (ipc_ && settled) settled = ipc_->retire(comm_);
  HALO_TRACE("destroyed: settled %d, products %u", (int)settled, products_);
  if (!settled) { // a peer never came: keep what it or our stream may still touch (leaked, not freed)
    (void)ipc_.release();
    (void)new DeviceBuffer<double>(std::move(d_send_));
    (void)new DeviceBuffer<double>(std::move(d_ghost_));
    (void)new DeviceBuffer<double>(std::move(d_recv_));
    stream_ = nullptr;
  }
  if (packed_) cudaEventDestroy(packed_);
  if (!reqs_.empty()) MPI_Waitall((int)reqs_.size(), reqs_.data(), MPI_STATUSES_IGNORE);
  if (pin_send_) cudaFreeHost(pin_send_);
  if (pin_recv_) cudaFreeHost(pin_recv_);
  for (cudaEvent_t e : ev_)
    if (e) cudaEventDestroy(e);
  for (cudaEvent_t e : end_)
    if (e) cudaEventDestroy(e);
  if (fork_) cudaEventDestroy(fork_);
  if (join_) cudaEventDestroy(join_);
  if (stream_) cudaStreamDestroy(stream_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

const double *Halo::ghosts() const { return device_ ? d_ghost_.data() : h_ghost_.data(); }

std::size_t Halo::device_bytes() const { return d_send_idx_.bytes() + d_recv_slot_.bytes() + d_send_.bytes() + d_recv_.bytes() + d_ghost_.bytes(); }

void Halo::post_mpi(const double *sendbuf, double *recvbuf)
{
  reqs_.clear();
  for (std::size_t i = 0; i < p_.recv_peers.size(); ++i)
    if (recv_ipc_.empty() || !recv_ipc_[i]) cur_.calls++, MPI_Irecv(recvbuf + p_.recv_off[i], (int)(p_.recv_off[i + 1] - p_.recv_off[i]), MPI_DOUBLE, p_.recv_peers[i], 0, comm_, &reqs_.emplace_back());
  for (std::size_t i = 0; i < p_.send_peers.size(); ++i)
    if (send_ipc_.empty() || !send_ipc_[i]) cur_.calls++, MPI_Isend(sendbuf + p_.send_off[i], (int)(p_.send_off[i + 1] - p_.send_off[i]), MPI_DOUBLE, p_.send_peers[i], 0, comm_, &reqs_.emplace_back());
}

void Halo::fork(cudaStream_t s)
{
  if (!device_) return;
  cur_ = {};
  if (pending_) collect();
  HALO_CALL(cudaEventRecord(measure_ ? ev_[0] : fork_, s));
}

void Halo::begin(const double *x)
{
  const std::size_t nsend = p_.send_idx.size();
  if (!device_) { // host backend: pack and post
    cur_ = {};
    for (std::size_t k = 0; k < nsend; ++k) h_send_[k] = x[p_.send_idx[k]];
    post_mpi(h_send_.data(), in_order_ ? h_ghost_.data() : h_recv_.data());
    return;
  }
  HALO_CALL(cudaStreamWaitEvent(stream_, measure_ ? ev_[0] : fork_));
  ++products_;
  HALO_TRACE("begin %u", products_);
  if (ipc_) cur_.calls += ipc_->before_pack(stream_); // the readers have copied the last product out of d_send_
  if (nsend) cur_.calls++, halo_pack_cuda(d_send_idx_.data(), nsend, x, d_send_.data(), stream_);
  if (path_ == HaloPath::nccl) {
    cur_.calls += 2 + (uint32_t)(nccl_sends_.size() + nccl_recvs_.size());
    nccl_exchange(nccl_, nccl_sends_.data(), (int)nccl_sends_.size(), nccl_recvs_.data(), (int)nccl_recvs_.size(), stream_);
    if (!in_order_) cur_.calls++, halo_unpack_cuda(d_recv_.data(), p_.recv_slot.size(), d_recv_slot_.data(), d_ghost_.data(), stream_);
    HALO_CALL(cudaEventRecord(join_, stream_));
  } else if (path_ == HaloPath::ipc) {
    if (any_mpi_) { // end() sends these peers' values once the pack is done
      if (staged() && nsend) HALO_CALL(cudaMemcpyAsync(pin_send_, d_send_.data(), nsend * sizeof(double), cudaMemcpyDeviceToHost, stream_));
      HALO_CALL(cudaEventRecord(packed_, stream_));
    }
    cur_.calls += ipc_->after_pack(stream_);
    cur_.calls += ipc_->fetch(stream_, in_order_ ? d_ghost_.data() : d_recv_.data());
    if (!any_mpi_) {
      if (!in_order_) cur_.calls++, halo_unpack_cuda(d_recv_.data(), p_.recv_slot.size(), d_recv_slot_.data(), d_ghost_.data(), stream_);
      HALO_CALL(cudaEventRecord(join_, stream_));
    }
  } else if (staged() && nsend) HALO_CALL(cudaMemcpyAsync(pin_send_, d_send_.data(), nsend * sizeof(double), cudaMemcpyDeviceToHost, stream_));
}

void Halo::local_done(cudaStream_t s)
{
  if (measure_) GPUFORMATS_CUDA(cudaEventRecord(ev_[2], s));
}

void Halo::product_done(cudaStream_t s)
{
  if (!measure_ || !pending_) return;
  end_now_ = end_prev_ == 0 ? 1 : 0;
  GPUFORMATS_CUDA(cudaEventRecord(end_[end_now_], s));
}

void Halo::end(cudaStream_t s)
{
  const std::size_t nrecv = p_.recv_slot.size();
  if (!device_) {
    MPI_Waitall((int)reqs_.size(), reqs_.data(), MPI_STATUSES_IGNORE), cur_.calls++, cur_.waits++;
    reqs_.clear();
    if (!in_order_)
      for (std::size_t k = 0; k < nrecv; ++k) h_ghost_[p_.recv_slot[k]] = h_recv_[k];
    last_ = cur_;
    return;
  }
  // The host waits for the pack (and its copy to pinned memory) only: the local product queued on
  // s since begin() runs on. Posting here, after that wait, also orders our receives after the
  // previous product's last read of the buffers.
  if (path_ == HaloPath::mpi) {
    HALO_WAIT(cudaStreamSynchronize(stream_));
    finish_mpi();
  } else if (path_ == HaloPath::ipc && any_mpi_) {
    HALO_WAIT(cudaEventSynchronize(packed_)); // not the stream: its IPC reads wait on peers
    finish_mpi();
  }
  if (measure_) HALO_CALL(cudaEventRecord(ev_[1], stream_));
  HALO_CALL(cudaStreamWaitEvent(s, join_));
  if (measure_) {
    HALO_CALL(cudaEventRecord(ev_[3], s));
    pending_ = true;
  }
  last_ = cur_;
}

void Halo::finish_mpi()
{
  const std::size_t nrecv = p_.recv_slot.size();
  double           *dst   = in_order_ ? d_ghost_.data() : d_recv_.data();
  post_mpi(staged() ? pin_send_ : d_send_.data(), staged() ? pin_recv_ : dst);
  MPI_Waitall((int)reqs_.size(), reqs_.data(), MPI_STATUSES_IGNORE), cur_.calls++, cur_.waits++;
  reqs_.clear();
  if (staged())
    for (std::size_t j = 0; j < p_.recv_peers.size(); ++j) { // the MPI peers' ranges (ipc: the others are in place)
      const std::size_t n = (std::size_t)(p_.recv_off[j + 1] - p_.recv_off[j]);
      if (n && (recv_ipc_.empty() || !recv_ipc_[j])) HALO_CALL(cudaMemcpyAsync(dst + p_.recv_off[j], pin_recv_ + p_.recv_off[j], n * sizeof(double), cudaMemcpyHostToDevice, stream_));
    }
  if (!in_order_) cur_.calls++, halo_unpack_cuda(d_recv_.data(), nrecv, d_recv_slot_.data(), d_ghost_.data(), stream_);
  HALO_CALL(cudaEventRecord(join_, stream_));
}

void Halo::collect()
{
  float halo = 0, local = 0, exposed = 0;
  GPUFORMATS_CUDA(cudaEventSynchronize(end_now_ >= 0 ? end_[end_now_] : ev_[3]));
  if (end_prev_ >= 0) { // the previous measured product's end to this one's fork
    float gap = 0;
    GPUFORMATS_CUDA(cudaEventElapsedTime(&gap, end_[end_prev_], ev_[0]));
    sum_.gap_s += 1e-3 * gap;
    sum_.gaps++;
  }
  if (end_now_ >= 0) {
    float rest = 0;
    GPUFORMATS_CUDA(cudaEventElapsedTime(&rest, ev_[3], end_[end_now_]));
    sum_.rest_s += 1e-3 * rest;
  }
  end_prev_ = end_now_;
  end_now_  = -1;
  GPUFORMATS_CUDA(cudaEventElapsedTime(&halo, ev_[0], ev_[1]));
  GPUFORMATS_CUDA(cudaEventElapsedTime(&local, ev_[0], ev_[2]));
  GPUFORMATS_CUDA(cudaEventElapsedTime(&exposed, ev_[2], ev_[3]));
  sum_.products++;
  sum_.halo_s += 1e-3 * halo;
  sum_.local_s += 1e-3 * local;
  sum_.exposed_s += 1e-3 * exposed;
  pending_ = false;
}

HaloTimes Halo::times()
{
  if (pending_) collect();
  return sum_;
}

} // namespace gpuformats
