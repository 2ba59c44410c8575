// The halo exchange (src/halo/) on host memory, on any number of ranks (mpiexec -n 3): patterns
// made here independently of PETSc's (each rank asks every other for a scattered subset of its
// entries, ghosts in request order or shuffled), the exchanged ghosts checked value by value, and
// the refusals (bad patterns, NCCL without the cuda backend).
#include "halo/halo.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace gpuformats;

static int failures = 0;
static int rank_    = 0;
static void check(bool ok, const std::string &name)
{
  int mine = ok ? 0 : 1, any = 0; // every rank's verdict: a check fails when it fails anywhere
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("%s %s\n", any ? "not ok" : "ok", name.c_str());
  failures += any;
}

struct Case {
  HaloPattern         p;
  std::vector<double> expect; // ghost values for x = value(global index)
};

static double value(int64_t g, double shift) { return 0.5 * (double)g + shift; }

// Rank r owns nlocal(r) = 40 + 7 r entries; from every other rank q it asks for every (2 + (r+q)%3)-th
// entry of q, in descending order when `reverse`; with `shuffle` the ghost slots are a permutation.
static Case make_case(int size, bool reverse, bool shuffle, unsigned seed)
{
  auto                 nloc = [](int r) { return (int64_t)(40 + 7 * r); };
  std::vector<int64_t> start(size + 1, 0);
  for (int r = 0; r < size; ++r) start[r + 1] = start[r] + nloc(r);
  Case c;
  c.p.nlocal = nloc(rank_);
  std::vector<std::vector<int32_t>> want(size); // per owner, its local indices we ask for
  for (int q = 0; q < size; ++q) {
    if (q == rank_) continue;
    for (int64_t i = 0; i < nloc(q); i += 2 + (rank_ + q) % 3) want[q].push_back((int32_t)i);
    if (reverse) std::reverse(want[q].begin(), want[q].end());
  }
  std::vector<int64_t> order; // received values' global indices in receive order
  c.p.recv_off.push_back(0);
  for (int q = 0; q < size; ++q) {
    if (want[q].empty()) continue;
    c.p.recv_peers.push_back(q);
    for (int32_t i : want[q]) order.push_back(start[q] + i);
    c.p.recv_off.push_back((int64_t)order.size());
  }
  c.p.nghost = (int64_t)order.size();
  c.p.recv_slot.resize(order.size());
  std::iota(c.p.recv_slot.begin(), c.p.recv_slot.end(), 0);
  if (shuffle) std::shuffle(c.p.recv_slot.begin(), c.p.recv_slot.end(), std::mt19937(seed + rank_));
  c.expect.resize(order.size());
  for (size_t k = 0; k < order.size(); ++k) c.expect[c.p.recv_slot[k]] = value(order[k], 0);
  // The owners learn the requests: counts, then the indices, in request order.
  std::vector<int> scount(size), rcount(size), sdisp(size + 1, 0), rdisp(size + 1, 0);
  for (int q = 0; q < size; ++q) scount[q] = (int)want[q].size();
  MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int32_t> req;
  for (int q = 0; q < size; ++q) {
    sdisp[q + 1] = sdisp[q] + scount[q];
    rdisp[q + 1] = rdisp[q] + rcount[q];
    req.insert(req.end(), want[q].begin(), want[q].end());
  }
  c.p.send_idx.resize((size_t)rdisp[size]);
  MPI_Alltoallv(req.data(), scount.data(), sdisp.data(), MPI_INT32_T, c.p.send_idx.data(), rcount.data(), rdisp.data(), MPI_INT32_T, MPI_COMM_WORLD);
  c.p.send_off.push_back(0);
  for (int q = 0; q < size; ++q)
    if (rcount[q]) {
      c.p.send_peers.push_back(q);
      c.p.send_off.push_back(rdisp[q + 1]);
    }
  return c;
}

int main(int argc, char **argv)
{
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int64_t> start(size + 1, 0);
  for (int r = 0; r < size; ++r) start[r + 1] = start[r] + 40 + 7 * r;

  for (int variant = 0; variant < 4; ++variant) {
    const bool        reverse = variant & 1, shuffle = variant & 2;
    const std::string name    = std::string("halo.mpi_host.np") + std::to_string(size) + (reverse ? ".descending" : ".ascending") + (shuffle ? ".shuffled" : ".in_order");
    Case              c       = make_case(size, reverse, shuffle, 17 + variant);
    check(c.p.in_order() == (!shuffle || c.p.nghost <= 1), name + ".in_order_detected");
    Halo h(c.p, HaloPath::mpi, false, false);
    h.connect(MPI_COMM_WORLD);
    for (int round = 0; round < 3; ++round) { // the buffers are reused: every round's values must arrive
      const double        shift = 1000.0 * round;
      std::vector<double> x((size_t)c.p.nlocal);
      for (int64_t i = 0; i < c.p.nlocal; ++i) x[(size_t)i] = value(start[rank_] + i, shift);
      h.fork(nullptr);
      h.begin(x.data());
      h.end(nullptr);
      bool ok = true;
      for (int64_t g = 0; g < c.p.nghost; ++g) ok = ok && h.ghosts()[g] == c.expect[(size_t)g] + shift;
      check(ok, name + ".round" + std::to_string(round));
      // the product's calls: a receive per peer sent from, a send per peer sent to, one wait for all
      const HaloCalls k = h.last_product();
      check(k.calls == c.p.recv_peers.size() + c.p.send_peers.size() + 1 && k.waits == 1, name + ".round" + std::to_string(round) + ".calls_counted");
    }
  }

  // Refusals: a bad pattern, NCCL on host memory, and NCCL's verdict on the host backend.
  {
    Case c = make_case(size, false, false, 3);
    if (!c.p.send_idx.empty()) c.p.send_idx[0] = (int32_t)c.p.nlocal; // one past the end
    bool threw = false;
    try {
      Halo h(c.p, HaloPath::mpi, false, false);
    } catch (const Error &e) {
      threw = e.kind == ErrorKind::bad_input && std::string(e.what()).find("out of range") != std::string::npos;
    }
    check(threw || c.p.send_idx.empty(), "halo.refuses_send_index_out_of_range");
    c          = make_case(size, false, false, 3);
    c.p.recv_off.back() += 1;
    threw = false;
    try {
      Halo h(c.p, HaloPath::mpi, false, false);
    } catch (const Error &e) {
      threw = e.kind == ErrorKind::bad_input;
    }
    check(threw, "halo.refuses_bad_offsets");
    c = make_case(size, false, false, 3);
    for (HaloPath path : {HaloPath::nccl, HaloPath::ipc}) { // the device paths refuse host memory
      threw = false;
      try {
        Halo h(c.p, path, false, false);
      } catch (const Error &e) {
        threw = e.kind == ErrorKind::unsupported && std::string(e.what()).find("cuda backend") != std::string::npos;
      }
      check(threw, std::string("halo.") + halo_path_name(path) + "_refuses_host_memory");
    }
    const std::string why = nccl_unusable_reason(MPI_COMM_WORLD, false);
    check(why.find("host backend") != std::string::npos, "halo.nccl_unusable_on_host_backend");
    // ipc: each rank's node (one machine: one node, or groups of k ranks)
    const std::vector<int> shared = halo_nodes(MPI_COMM_WORLD, 0);
    check(ipc_unusable_reason(MPI_COMM_WORLD, false, shared).find("host backend") != std::string::npos, "halo.ipc_unusable_on_host_backend");
    bool one = (int)shared.size() == size;
    for (int n : shared) one = one && n == 0;
    check(one, "halo.nodes_shared_memory_one_machine");
    for (int k = 1; k <= 3; ++k) {
      const std::vector<int> g  = halo_nodes(MPI_COMM_WORLD, k);
      bool                   ok = (int)g.size() == size;
      for (int r = 0; ok && r < size; ++r) ok = g[r] == r / k * k;
      check(ok, "halo.nodes_of_" + std::to_string(k) + "_ranks");
    }
  }
  if (rank_ == 0) std::printf("# test_halo: %d failed\n", failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
