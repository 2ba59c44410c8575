// mpi<fmt>: an MPIAIJ matrix whose local (diagonal) and off-process blocks both run in a
// gpuformats layout. Product order, as PETSc's MPIAIJ but with our own halo exchange:
//
//   y  = A_d x                     queued first (ours: after marking where x is ready)
//   halo begin (x -> ghosts)       nccl: pack, send and receive on the halo's higher-priority
//                                  stream (src/halo/), beside the local product;
//                                  vecscatter: PETSc packs and posts MPI before the local product
//   halo end                       nccl: the stream waits for the ghosts, the host for nothing
//   y += A_o ghosts                rows with no off-process entries cost nothing in the format
#include "gf_mat.hpp"

#include "halo/nccl_comm.hpp"

#include <petscdevice_cuda.h>
#include <petscsf.h>

#include <string>

namespace gpuformats {

// The SeqAIJ blocks of the MPIAIJ data (MatMPIAIJGetSeqAIJ() takes our mpiaij<fmt> names as MPIAIJ),
// the local one adopted as a seq<fmt> sharing our diag block (gf_mat.hpp): MPIAIJ makes a new plain
// seqaij one at each preallocation, adopted at the final assembly. Its options follow ours at every sync.
// The off-process block stays SeqAIJ, its value accessors guarded (gf_values.cpp).
PetscErrorCode GFMPIAdoptLocalBlock(Mat A, Mat *Ad, Mat *Ao)
{
  GFMat &gm = gf(A);
  Mat    d, o;

  PetscFunctionBegin;
  if (!Ad) Ad = &d;
  if (!Ao) Ao = &o;
  PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, Ao, NULL));
  if (!(*Ad)->spptr) {
    PetscBool plain;
    PetscCall(PetscObjectTypeCompare((PetscObject)*Ad, MATSEQAIJ, &plain));
    PetscCheck(plain, PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuformats: the local block of a %s matrix is %s; expected %s", ((PetscObject)A)->type_name, ((PetscObject)*Ad)->type_name, MATSEQAIJ);
    PetscCall(GFInstall(*Ad, gm.ops, PETSC_FALSE, MatConvert_SeqAIJ_SeqGF));
  }
  GFMat &ld = gf(*Ad);
  PetscCheck(ld.ops == gm.ops, PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuformats: the local block of a %s matrix is %s", ((PetscObject)A)->type_name, ((PetscObject)*Ad)->type_name);
  ld.adopted = true;
  ld.diag    = gm.diag;
  PetscCall(GFInherit(A, *Ad));
  (*Ad)->boundtocpu = A->boundtocpu;
  PetscCall(GFGuardOffProcessBlock(A, *Ao));
  gm.diag->owner = gm.offd->owner = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class Cleanup>
static PetscErrorCode CollectiveCheck(MPI_Comm comm, const GFLayerError &e, Cleanup cleanup);

// Collective: whether e holds a failure on any rank (*any: the largest error class, 0 for none) and,
// if so, the first failing rank and its message, on every rank.
static PetscErrorCode FirstFailure(MPI_Comm comm, const GFLayerError &e, PetscMPIInt *any, PetscMPIInt *who, std::string *msg)
{
  PetscMPIInt mine = (PetscMPIInt)e.cls, rank, len;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&mine, any, 1, MPI_INT, MPI_MAX, comm));
  if (!*any) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  const PetscMPIInt cand = e.cls ? rank : PETSC_MPI_INT_MAX;
  PetscCallMPI(MPI_Allreduce(&cand, who, 1, MPI_INT, MPI_MIN, comm));
  *msg = e.cls ? e.msg : "";
  len  = (PetscMPIInt)msg->size();
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_INT, *who, comm));
  msg->resize((size_t)len);
  PetscCallMPI(MPI_Bcast(msg->data(), len, MPI_CHAR, *who, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The exchange pattern of the ghosts (MatGetGhosts, sorted global columns) from a PetscSF of type
// basic on them: its root ranks are whom we receive from, its leaf ranks whom we send to, and each
// pair's lists are in the order the two ranks agreed at the SF's set-up.
static PetscErrorCode BuildHaloPattern(Mat A, HaloPattern &p)
{
  PetscSF            sf;
  PetscInt           nghost;
  const PetscInt    *ghosts, *roffset, *rmine, *rremote, *ioffset, *irootloc;
  PetscMPIInt        nranks, niranks;
  const PetscMPIInt *ranks, *iranks;

  PetscFunctionBegin;
  PetscCall(MatGetGhosts(A, &nghost, &ghosts));
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &sf));
  PetscCall(PetscSFSetType(sf, PETSCSFBASIC));
  PetscCall(PetscSFSetGraphLayout(sf, A->cmap, nghost, NULL, PETSC_COPY_VALUES, ghosts));
  PetscCall(PetscSFSetUp(sf));
  PetscCall(PetscSFGetRootRanks(sf, &nranks, &ranks, &roffset, &rmine, &rremote));
  PetscCall(PetscSFGetLeafRanks(sf, &niranks, &iranks, &ioffset, &irootloc));
  p        = HaloPattern{};
  p.nlocal = A->cmap->n;
  p.nghost = nghost;
  p.recv_off.push_back(0);
  for (PetscMPIInt i = 0; i < nranks; ++i) {
    if (roffset[i + 1] == roffset[i]) continue;
    p.recv_peers.push_back(ranks[i]);
    for (PetscInt k = roffset[i]; k < roffset[i + 1]; ++k) p.recv_slot.push_back((int32_t)(rmine ? rmine[k] : k));
    p.recv_off.push_back((int64_t)p.recv_slot.size());
  }
  p.send_off.push_back(0);
  for (PetscMPIInt i = 0; i < niranks; ++i) {
    if (ioffset[i + 1] == ioffset[i]) continue;
    p.send_peers.push_back(iranks[i]);
    for (PetscInt k = ioffset[i]; k < ioffset[i + 1]; ++k) p.send_idx.push_back((int32_t)irootloc[k]);
    p.send_off.push_back((int64_t)p.send_idx.size());
  }
  PetscCall(PetscSFDestroy(&sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The largest halo (ghost values) of any rank: collective. Called inside the final assembly, where
// PETSc does not yet count A as assembled (MatGetGhosts would refuse it): the off-process block's
// columns, which MPIAIJ's assembly has just compacted to the ghosts.
static PetscErrorCode LargestHalo(Mat A, PetscInt64 *largest)
{
  Mat Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &Ao, NULL));
  *largest = Ao ? Ao->cmap->n : 0;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, largest, 1, MPIU_INT64, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether auto takes ipc: every rank on one node (halo_nodes) and IPC usable there (else why not).
// Collective. Measured on 2 H100 (NVLink), bench/results/h100x2/halo-paths/: ipc ties or beats the
// staged mpi path on small halos (SNES ex14 256^3 CG: KSPSolve 1.84 s against 1.87 s; st7_200
// 154 us against 176 us) and the nccl path on large ones (circuit 368 us against 386 us; rmat_s22
// 363 / 365 us), where mpi is 6-15x slower; nccl loses inside the CG loop (2.74 s).
// Not where ranks share a GPU (*shared: which): their contexts take turns, and an ipc product waits
// for the other rank's turn; the staged mpi path takes them there (2 ranks on one H200, 27-point
// 160^3: a product 0.51 ms against ipc's 4.4 ms and vecscatter's 0.78 ms; CG + Jacobi 0.39 s
// against 0.81 s, mpiaijcusparse 0.53 s: bench/results/h200/device-values-mpi/).
static PetscErrorCode AutoTakesIpc(MPI_Comm comm, PetscInt node_ranks, bool *ipc, std::string *why, std::string *shared = nullptr)
{
  std::vector<int> nodes;

  PetscFunctionBegin;
  GF_TRY(comm, nodes = halo_nodes(comm, (int)node_ranks)); // (MPI only: throws nothing)
  std::string sharing;
  GF_TRY(comm, sharing = ranks_sharing_gpu(comm, nodes));
  if (shared) *shared = sharing;
  bool one_node = true;
  for (int n : nodes) one_node = one_node && n == nodes[0];
  *why = !sharing.empty() ? sharing : one_node ? ipc_unusable_reason(comm, true, nodes) : std::string("ranks on several nodes");
  *ipc = why->empty();
  PetscFunctionReturn(PETSC_SUCCESS);
}

// auto across nodes (or where ipc does not serve): nccl for halos of at least kNcclMinGhosts values
// on some rank where NCCL serves every rank, else mpi. Collective.
static PetscErrorCode AutoAcrossNodes(Mat A, GFMat &gm, const std::string &no_ipc, const char *staged, HaloPath *path)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)A);
  PetscInt64 largest;

  PetscFunctionBegin;
  PetscCall(LargestHalo(A, &largest));
  const std::string why = largest >= kNcclMinGhosts ? nccl_unusable_reason(comm, true) : "";
  if (largest >= kNcclMinGhosts && why.empty()) {
    *path       = HaloPath::nccl;
    gm.halo_why = "auto: no ipc (" + no_ipc + "); " + std::to_string(largest) + " ghost values on the largest rank, NCCL " + nccl_version() + " serves every rank";
  } else {
    *path       = HaloPath::mpi;
    gm.halo_why = "auto: no ipc (" + no_ipc + "); " + (why.empty() ? std::to_string(largest) + " ghost values on the largest rank, below " + std::to_string(kNcclMinGhosts) + " (nccl above)" : "NCCL cannot serve (" + why + ")") + staged;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The exchange on `path`, set up collectively. ok (may be null): where given, a failure of the
// set-up on any rank comes back as false on every rank (its message in *failure) instead of an error.
static PetscErrorCode MakeHalo(Mat A, GFMat &gm, Backend backend, HaloPath path, std::unique_ptr<Halo> &h, bool *ok, std::string *failure)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)A);
  HaloPattern  pattern;
  GFLayerError e, ce;

  PetscFunctionBegin;
  PetscCall(BuildHaloPattern(A, pattern));
  run_layer([&] { h = std::make_unique<Halo>(std::move(pattern), path, backend == Backend::cuda, use_gpu_aware_mpi); }, e);
  PetscCall(CollectiveCheck(comm, e, [] {}));
  run_layer([&] { h->connect(comm, (int)gm.opt.halo_node_ranks); }, ce); // collective
  if (ok) {
    PetscMPIInt any, who;
    std::string msg;
    PetscCall(FirstFailure(comm, ce, &any, &who, &msg));
    *ok = !any;
    if (any) {
      *failure = "rank " + std::to_string(who) + ": " + msg;
      h.reset();
    }
  } else PetscCall(CollectiveCheck(comm, ce, [] {})); // a failure is every rank's
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Which exchange the forward product uses (-mat_gpuformats_halo), made once per nonzero pattern,
// backend and option; collective: every rank takes the same path. auto on the cuda backend: ipc
// where every rank is on one node whose GPUs are peers (and, should its set-up fail on some rank,
// the rule across nodes instead); else AutoAcrossNodes; on the host backend PETSc's VecScatter.
static PetscErrorCode ChooseHalo(Mat A, GFMat &gm, Backend backend)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt size;
  HaloPath    path     = HaloPath::mpi;
  bool        auto_ipc = false;
  const char *staged   = backend == Backend::cuda && !use_gpu_aware_mpi ? ", staged through pinned host memory (MPI is not GPU-aware here)" : "";

  PetscFunctionBegin;
  gm.dhalo.reset();
  gm.halo_used = MAT_GPUFORMATS_HALO_VECSCATTER;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) {
    gm.halo_why = "one rank: no ghosts";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (gm.opt.halo_option) {
  case MAT_GPUFORMATS_HALO_VECSCATTER:
    gm.halo_why = "asked for (-mat_gpuformats_halo vecscatter)";
    PetscFunctionReturn(PETSC_SUCCESS);
  case MAT_GPUFORMATS_HALO_MPI:
    gm.halo_why = std::string("asked for") + staged;
    break;
  case MAT_GPUFORMATS_HALO_NCCL: {
    const std::string why = nccl_unusable_reason(comm, backend == Backend::cuda);
    PetscCheck(why.empty(), comm, PETSC_ERR_SUP, "gpuformats: -mat_gpuformats_halo nccl cannot run: %s. Use -mat_gpuformats_halo auto, mpi or vecscatter", why.c_str());
    path        = HaloPath::nccl;
    gm.halo_why = "asked for (NCCL " + nccl_version() + ")";
    break;
  }
  case MAT_GPUFORMATS_HALO_IPC: {
    const std::vector<int> nodes = halo_nodes(comm, (int)gm.opt.halo_node_ranks);
    const std::string      why   = ipc_unusable_reason(comm, backend == Backend::cuda, nodes);
    PetscCheck(why.empty(), comm, PETSC_ERR_SUP, "gpuformats: -mat_gpuformats_halo ipc cannot run: %s. Use -mat_gpuformats_halo auto, mpi or vecscatter", why.c_str());
    path        = HaloPath::ipc;
    gm.halo_why = std::string("asked for (copy engines through CUDA IPC between the GPUs of a node") + (gm.opt.halo_node_ranks ? ", nodes of " + std::to_string(gm.opt.halo_node_ranks) + " ranks" : std::string()) + "; peers on other nodes by mpi" + staged + ")";
    break;
  }
  default: {
    if (backend != Backend::cuda) {
      gm.halo_why = "auto: host backend";
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    std::string no_ipc, shared;
    PetscCall(AutoTakesIpc(comm, gm.opt.halo_node_ranks, &auto_ipc, &no_ipc, &shared));
    if (auto_ipc) {
      path        = HaloPath::ipc;
      gm.halo_why = "auto: one node, its GPUs peers (copy engines through CUDA IPC)";
    } else if (!shared.empty()) {
      path        = HaloPath::mpi;
      gm.halo_why = "auto: " + shared + " (their contexts take turns: no ipc, no NCCL)" + staged;
    } else PetscCall(AutoAcrossNodes(A, gm, no_ipc, staged, &path));
  }
  }
  std::unique_ptr<Halo> h;
  bool                  ok = true;
  std::string           failure;
  PetscCall(MakeHalo(A, gm, backend, path, h, auto_ipc ? &ok : nullptr, &failure));
  if (!ok) { // IPC refused where it looked usable (MIG, a container's namespaces): auto moves on
    PetscCall(PetscInfo(A, "gpuformats: the ipc halo could not be set up (%s); auto takes the rule across nodes\n", failure.c_str()));
    PetscCall(AutoAcrossNodes(A, gm, "its set-up failed, " + failure, staged, &path));
    PetscCall(MakeHalo(A, gm, backend, path, h, nullptr, nullptr));
  }
  h->measure(gm.opt.halo_measure);
  gm.dhalo     = std::move(h);
  gm.halo_used = path == HaloPath::nccl ? MAT_GPUFORMATS_HALO_NCCL : path == HaloPath::ipc ? MAT_GPUFORMATS_HALO_IPC : MAT_GPUFORMATS_HALO_MPI;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void GFSetHalo(GFMat &gm, MatGPUFormatsHalo halo, PetscBool measure)
{
  if (gm.opt.halo_option != halo) gm.halo_nzstate = -1; // EnsureHalo chooses again
  gm.opt.halo_option  = halo;
  gm.opt.halo_measure = measure;
  if (gm.dhalo) gm.dhalo->measure(measure);
}

// Collective, at an mpi<fmt>'s first final assembly: where the products will take NCCL (nccl asked
// for, or auto with a large halo where ipc cannot serve; device vectors), the NCCL communicator of this group of ranks is made now (once
// per program: about a second, measured on 2 H100) rather than in the first product, inside a solve.
PetscErrorCode GFMPIPrepareHalo(Mat A)
{
  GFMat      &gm = gf(A);
  PetscMPIInt size;
  PetscBool   cuda_vecs;

  PetscFunctionBegin;
  if (gm.halo_prepared) PetscFunctionReturn(PETSC_SUCCESS);
  gm.halo_prepared = true;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(PetscStrcmp(A->defaultvectype, VECCUDA, &cuda_vecs));
  if (size == 1 || A->boundtocpu || !cuda_vecs || resolve_backend(gm) != Backend::cuda) PetscFunctionReturn(PETSC_SUCCESS);
  if (gm.opt.halo_option != MAT_GPUFORMATS_HALO_AUTO && gm.opt.halo_option != MAT_GPUFORMATS_HALO_NCCL) PetscFunctionReturn(PETSC_SUCCESS);
  if (gm.opt.halo_option == MAT_GPUFORMATS_HALO_AUTO) {
    PetscInt64 largest;
    PetscCall(LargestHalo(A, &largest));
    if (largest < kNcclMinGhosts) PetscFunctionReturn(PETSC_SUCCESS); // auto takes mpi: no NCCL
  }
  // PETSc picks each rank's GPU lazily (at the first device vector): pick it now, or every rank
  // would still be on GPU 0 here (a context made there, and NCCL refused as two ranks on one GPU).
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  if (gm.opt.halo_option == MAT_GPUFORMATS_HALO_AUTO) {
    bool        ipc;
    std::string no_ipc, shared;
    PetscCall(AutoTakesIpc(PetscObjectComm((PetscObject)A), gm.opt.halo_node_ranks, &ipc, &no_ipc, &shared));
    if (ipc || !shared.empty()) PetscFunctionReturn(PETSC_SUCCESS); // auto takes ipc, or mpi on a shared GPU: no NCCL
  }
  if (!nccl_unusable_reason(PetscObjectComm((PetscObject)A), true).empty()) PetscFunctionReturn(PETSC_SUCCESS); // the first product says why
  GF_TRY(PetscObjectComm((PetscObject)A), nccl_comm_of(PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Ghost vector and scatter for the off-process block (and the product's exchange), rebuilt when
// the nonzero pattern (and so the ghost list), the backend or the halo option changes.
static PetscErrorCode EnsureHalo(Mat A, GFMat &gm, Backend backend)
{
  PetscObjectState nz;
  PetscInt         nghost;
  const PetscInt  *ghosts;
  IS               is;
  Vec              xt;
  PetscBool        lcuda = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(A, &nz));
  if (gm.lvec) PetscCall(PetscObjectTypeCompare((PetscObject)gm.lvec, VECSEQCUDA, &lcuda));
  if (gm.halo && nz == gm.halo_nzstate && (lcuda == PETSC_TRUE) == (backend == Backend::cuda)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecScatterDestroy(&gm.halo));
  PetscCall(VecDestroy(&gm.lvec));
  PetscCall(MatGetGhosts(A, &nghost, &ghosts));
  PetscCall(VecCreate(PETSC_COMM_SELF, &gm.lvec));
  PetscCall(VecSetSizes(gm.lvec, nghost, nghost));
  PetscCall(VecSetType(gm.lvec, backend == Backend::cuda ? VECSEQCUDA : VECSEQ));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, ghosts, PETSC_COPY_VALUES, &is));
  PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)A), 1, A->cmap->n, A->cmap->N, NULL, &xt));
  PetscCall(VecScatterCreate(xt, is, gm.lvec, NULL, &gm.halo));
  PetscCall(VecDestroy(&xt));
  PetscCall(ISDestroy(&is));
  PetscCall(ChooseHalo(A, gm, backend));
  gm.halo_nzstate = nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPIGhostValues(Mat A, Backend backend, Vec r, Vec *ghosts)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  PetscCall(EnsureHalo(A, gm, backend));
  PetscCall(VecScatterBegin(gm.halo, r, gm.lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(gm.halo, r, gm.lvec, INSERT_VALUES, SCATTER_FORWARD));
  *ghosts = gm.lvec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Both blocks. defer null: a failure is raised on this rank; else it is held in *defer, naming the block.
static PetscErrorCode SyncBlocks(Mat A, GFMat &gm, Backend backend, PetscBool want_diag, GFLayerError *defer)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(GFMPIAdoptLocalBlock(A, &Ad, &Ao));
  gm.syncs++; // the blocks built or refreshed here count as one build or refresh (MatGPUFormatsGetLastTimes)
  PetscCall(GFBlockSync(gm, *gm.diag, Ad, backend, want_diag, defer));
  if (defer && defer->cls) {
    defer->msg = "local block: " + defer->msg;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GFBlockSync(gm, *gm.offd, Ao, backend, PETSC_FALSE, defer));
  if (defer && defer->cls) defer->msg = "off-process block: " + defer->msg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Both blocks, and the halo when asked. Collective: called from the first product after an assembly,
// conversion, MatGPUFormatsSync/GetBytes and the diagonal, where the layouts are (re)built; a
// failure on one rank fails every rank with the first failing rank's message.
// Collective: a failure held in e on any rank fails every rank with the first failing rank's
// message (after `cleanup` on every rank).
template <class Cleanup>
static PetscErrorCode CollectiveCheck(MPI_Comm comm, const GFLayerError &e, Cleanup cleanup)
{
  PetscMPIInt any, who;
  std::string msg;

  PetscFunctionBegin;
  PetscCall(FirstFailure(comm, e, &any, &who, &msg));
  if (any) {
    cleanup();
    SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)(e.cls ? (PetscMPIInt)e.cls : any), "gpuformats: [rank %d] %s; the AIJ matrix is unchanged", who, msg.c_str());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPISync(Mat A, Backend backend, PetscBool want_diag, PetscBool with_halo)
{
  GFMat       &gm = gf(A);
  GFLayerError e;

  PetscFunctionBegin;
  PetscCall(SyncBlocks(A, gm, backend, want_diag, &e));
  gm.collective_syncs++;
  PetscCall(CollectiveCheck(PetscObjectComm((PetscObject)A), e, [&] {
    gm.diag->reset();
    gm.offd->reset();
  }));
  gm.pending = false;
  if (with_halo) PetscCall(EnsureHalo(A, gm, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What every product does first. The first product after an assembly syncs collectively (a failure
// on one rank fails every rank); later ones do no reduction: what a product still finds stale
// (values changed without assembly, a backend switch) is refreshed here and a failure is raised on
// this rank, as MPIAIJ's own products do.
static PetscErrorCode ReadyForProduct(Mat A, GFMat &gm, Backend backend)
{
  PetscFunctionBegin;
  if (gm.pending) PetscCall(GFMPISync(A, backend, PETSC_FALSE, PETSC_TRUE));
  PetscCall(SyncBlocks(A, gm, backend, PETSC_FALSE, nullptr));
  PetscCall(EnsureHalo(A, gm, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A x + beta y, with the halo exchange overlapped with the local product.
PetscErrorCode GFMPIProduct(Mat A, Backend backend, Vec x, PetscScalar beta, Vec y)
{
  GFMat             &gm     = gf(A);
  const PetscBool    read_y = beta != 0.0 ? PETSC_TRUE : PETSC_FALSE;
  const PetscScalar *xa, *ga;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(ReadyForProduct(A, gm, backend));
  if (gm.dhalo) {
    cudaStream_t s = nullptr;
    if (backend == Backend::cuda) PetscCall(PetscGetCurrentCUDAStream(&s));
    PetscCall(GFGetArrays(backend, x, &xa, y, read_y, &ya));
    GF_TRY(PETSC_COMM_SELF, gm.dhalo->fork(s));
    if (gm.opt.halo_overlap) PetscCall(GFBlockSpMV(gm, *gm.diag, 1.0, xa, beta, ya));
    PetscCall(PetscLogEventBegin(MAT_GPUFormatsHalo, A, 0, 0, 0));
    GF_TRY(PETSC_COMM_SELF, gm.dhalo->local_done(s); gm.dhalo->begin(xa); gm.dhalo->end(s));
    PetscCall(PetscLogEventEnd(MAT_GPUFormatsHalo, A, 0, 0, 0));
    if (!gm.opt.halo_overlap) PetscCall(GFBlockSpMV(gm, *gm.diag, 1.0, xa, beta, ya)); // after the exchange, which ran alone
    if (gm.offd->fmt->nnz > 0) PetscCall(GFBlockSpMV(gm, *gm.offd, 1.0, gm.dhalo->ghosts(), 1.0, ya));
    GF_TRY(PETSC_COMM_SELF, gm.dhalo->product_done(s));
    PetscCall(GFRestoreArrays(backend, x, &xa, y, read_y, &ya));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecScatterBegin(gm.halo, x, gm.lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(GFGetArrays(backend, x, &xa, y, read_y, &ya));
  PetscCall(GFBlockSpMV(gm, *gm.diag, 1.0, xa, beta, ya));
  PetscCall(GFRestoreArrays(backend, x, &xa, y, read_y, &ya));
  PetscCall(VecScatterEnd(gm.halo, x, gm.lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (gm.offd->fmt->nnz > 0) {
    PetscCall(GFGetArrays(backend, gm.lvec, &ga, y, PETSC_TRUE, &ya));
    PetscCall(GFBlockSpMV(gm, *gm.offd, 1.0, ga, 1.0, ya));
    PetscCall(GFRestoreArrays(backend, gm.lvec, &ga, y, PETSC_TRUE, &ya));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// z = A^T x (+ y), cuda backend, device vectors: each block's A^T (transpose/), the off-process part
// sent back by the reverse halo scatter, as mpiaijcusparse does (A_o^T x first, so the messages
// travel during A_d^T x).
PetscErrorCode GFMPITransposedProduct(Mat A, Vec x, Vec y, Vec z)
{
  GFMat       &gm = gf(A);
  Mat          Ad, Ao;
  GFLayerError e;

  PetscFunctionBegin;
  PetscCall(ReadyForProduct(A, gm, Backend::cuda));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL)); // A_d adopted by the sync above
  // The first transposed product after a collective sync may build both A^T: a failure there (out of
  // memory) fails every rank, as a sync does. Later ones only gather values, like ReadyForProduct.
  const bool collective = gm.transposed_checked != gm.collective_syncs;
  PetscCall(GFBlockTransposeReady(gm, *gm.diag, Ad, collective ? &e : nullptr));
  if (!e.cls) PetscCall(GFBlockTransposeReady(gm, *gm.offd, Ao, collective ? &e : nullptr));
  if (collective) {
    PetscCall(CollectiveCheck(PetscObjectComm((PetscObject)A), e, [&] {
      gm.diag->transposed.reset();
      gm.offd->transposed.reset();
    }));
    gm.transposed_checked = gm.collective_syncs;
  }
  // A rank without off-process entries (no ghosts) still takes part in the scatter: others send to it.
  if (y && y != z) PetscCall(VecCopy(y, z));
  if (gm.offd->fmt->ncols > 0) PetscCall(GFBlockTransposedProduct(*gm.offd, x, PETSC_FALSE, gm.lvec));
  PetscCall(GFBlockTransposedProduct(*gm.diag, x, y ? PETSC_TRUE : PETSC_FALSE, z));
  PetscCall(VecScatterBegin(gm.halo, gm.lvec, z, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(gm.halo, gm.lvec, z, ADD_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The exchange's lines of -mat_view ::ascii_info: its path and why, its traffic, and the measured
// overlap (-mat_gpuformats_halo_measure).
static PetscErrorCode HaloView(GFMat &gm, PetscMPIInt rank, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (gm.halo_why.empty()) {
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] gpuformats halo: %s asked for; chosen at the first product\n", rank, MatGPUFormatsHalos[gm.opt.halo_option]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] gpuformats halo: %s (%s)\n", rank, MatGPUFormatsHalos[gm.halo_used], gm.halo_why.c_str()));
  if (!gm.dhalo) PetscFunctionReturn(PETSC_SUCCESS);
  const HaloPattern &p = gm.dhalo->pattern();
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] gpuformats halo: per product %zu values sent to %zu ranks, %zu received from %zu ranks%s; %s\n", rank, p.send_idx.size(), p.send_peers.size(), p.recv_slot.size(), p.recv_peers.size(),
                                               p.in_order() ? " straight into the ghost buffer" : " and unpacked", gm.dhalo->device() ? (std::to_string(gm.dhalo->device_bytes()) + " bytes on the device").c_str() : "host memory"));
  if (gm.dhalo->path() == HaloPath::ipc) PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] gpuformats halo: %d peer ranks by IPC, %d by MPI\n", rank, gm.dhalo->ipc_peers(), gm.dhalo->mpi_peers()));
  const HaloCalls k = gm.dhalo->last_product();
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] gpuformats halo: the last product's exchange made %u calls (CUDA, driver, NCCL, MPI) and %u host waits\n", rank, k.calls, k.waits));
  HaloTimes t;
  GF_TRY(PETSC_COMM_SELF, t = gm.dhalo->times());
  if (t.products) {
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] gpuformats halo: over %" PetscInt64_FMT " measured products, each: halo %.1f us, local product %.1f us, waited for the ghosts %.1f us: %.0f%% of the halo hidden\n", rank, (PetscInt64)t.products, 1e6 * t.halo_s / (double)t.products,
                                                 1e6 * t.local_s / (double)t.products, 1e6 * t.exposed_s / (double)t.products, 100.0 * t.hidden()));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] gpuformats halo: then the off-process product and the rest %.1f us; between one product's end and the next one's start %.1f us (the caller's work)\n", rank, 1e6 * t.rest_s / (double)t.products, t.gaps ? 1e6 * t.gap_s / (double)t.gaps : 0.0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPIView(Mat A, PetscViewer viewer)
{
  GFMat      &gm = gf(A);
  PetscMPIInt rank;
  char        label[64];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(PetscSNPrintf(label, sizeof(label), "[%d] gpuformats local block", rank));
  PetscCall(GFBlockView(gm, *gm.diag, label, viewer, PETSC_TRUE));
  {
    Mat Ad;
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    if (Ad->spptr) PetscCall(GFShadowView(gf(Ad).shadow, *gm.diag, label, viewer, PETSC_TRUE));
  }
  PetscCall(PetscSNPrintf(label, sizeof(label), "[%d] gpuformats off-process block", rank));
  PetscCall(GFBlockView(gm, *gm.offd, label, viewer, PETSC_TRUE));
  PetscCall(HaloView(gm, rank, viewer));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPIHaloTimes(Mat A, MatGPUFormatsHalo *used, PetscInt *products, PetscReal *halo, PetscReal *local, PetscReal *exposed)
{
  GFMat    &gm = gf(A);
  HaloTimes t;

  PetscFunctionBegin;
  if (gm.dhalo) GF_TRY(PETSC_COMM_SELF, t = gm.dhalo->times());
  if (used) *used = gm.halo_used;
  if (products) *products = (PetscInt)t.products;
  if (halo) *halo = t.halo_s;
  if (local) *local = t.local_s;
  if (exposed) *exposed = t.exposed_s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPIDestroy(Mat A)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  gm.diag->owner = gm.offd->owner = nullptr; // (A_d or A_o may outlive A)
  gm.dhalo.reset();
  PetscCall(VecScatterDestroy(&gm.halo));
  PetscCall(VecDestroy(&gm.lvec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIAIJ_MPIGF(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(GFConvert(A, type, reuse, newmat, PETSC_TRUE, MatConvert_MPIAIJ_MPIGF));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreate_MPIGF(Mat B, const FormatOps *ops)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIAIJ(B));
  PetscCall(MatConvert_MPIAIJ_MPIGF(B, mpi_type_name(ops), MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
