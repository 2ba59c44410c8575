// COO assembly (MatSetPreallocationCOO, MatSetValuesCOO), the way GPU applications assemble.
//
// The preallocation is AIJ's own (PETSc's sort of the entries, its pattern and its map `jmap`/`perm`
// of COO entries onto CSR entries, duplicates included). A seq type then sets values in one pass on
// its layout, from host or device arrays, with no host AIJ work:
//
//   v (n COO values) --upload if host, cuda layout--> values[slot_of_csr[k]] = (ADD ? itself : 0)
//                                                        + sum v[perm[jmap[k] .. jmap[k+1])]
//
// (formats/slot_map.hpp coo_values; the map goes to the device once per preallocation and layout).
// Without duplicates the map is composed with the slots once, and a pass goes over the entries in
// their own order (coo_values_unique: 12 bytes read per entry instead of 28). The host
// values are then stale, as after an in-place edit (gf_values.cpp). The mpi types keep MPIAIJ's COO
// (off-process entries included): device values are copied to the host for it.
#include "gf_mat.hpp"

#include "formats/slot_map.hpp"

#include <../src/mat/impls/aij/seq/aij.h> // MatCOOStruct_SeqAIJ: PETSc's COO map
#include <../src/mat/impls/aij/mpi/mpiaij.h> // MatCOOStruct_MPIAIJ: its number of entries

#include <petscdevice_cuda.h>
#include <petscsf.h>

namespace gpuformats {

static_assert(sizeof(PetscCount) == sizeof(int64_t), "PETSc's COO map is read as int64_t");

namespace {

PetscErrorCode MatSetPreallocationCOO_GF(Mat A, PetscCount n, PetscInt i[], PetscInt j[])
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  gm.diag->host_stale = gm.offd->host_stale = false; // a new pattern: the values go with the old one
  A->offloadmask      = PETSC_OFFLOAD_CPU;
  PetscCall(gm.coo.aij_preallocation(A, n, i, j)); // the next use rebuilds the layout
  gm.coo.map = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// v's n values in device (or host) memory: v itself, or a copy in the buffer.
PetscErrorCode ValuesIn(GFCoo &coo, const PetscScalar *v, PetscCount n, bool device, const PetscScalar **out)
{
  PetscMemType mt;

  PetscFunctionBegin;
  *out = v;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetMemType(v, &mt));
  if (device == (bool)PetscMemTypeDevice(mt)) PetscFunctionReturn(PETSC_SUCCESS);
  if (device) {
    cudaStream_t s;
    PetscCall(PetscGetCurrentCUDAStream(&s));
    GF_TRY(PETSC_COMM_SELF, coo.d_v.resize((size_t)n); coo.d_v.upload(v, (size_t)n, s));
    PetscCall(PetscLogCpuToGpu(sizeof(PetscScalar) * (PetscLogDouble)n));
    *out = coo.d_v.data();
  } else {
    coo.h_v.resize((size_t)n);
    PetscCallCUDA(cudaMemcpy(coo.h_v.data(), v, sizeof(PetscScalar) * n, cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu(sizeof(PetscScalar) * (PetscLogDouble)n));
    *out = coo.h_v.data();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetValuesCOO_SeqGF(Mat A, const PetscScalar v[], InsertMode imode)
{
  GFMat              &gm = gf(A);
  PetscContainer      container;
  MatCOOStruct_SeqAIJ *map;
  const PetscScalar  *vals;

  PetscFunctionBegin;
  PetscCheck(imode == INSERT_VALUES || imode == ADD_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "gpuformats: MatSetValuesCOO takes INSERT_VALUES or ADD_VALUES");
  PetscCall(PetscObjectQuery((PetscObject)A, "__PETSc_MatCOOStruct_Host", (PetscObject *)&container));
  PetscCheck(container, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "gpuformats: MatSetValuesCOO needs MatSetPreallocationCOO first");
  PetscCall(PetscContainerGetPointer(container, &map));
  if (!A->assembled && !A->boundtocpu && !gm.adopted) { // just preallocated: the pattern, assembled (values 0) for the layout
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  if (A->boundtocpu || gm.adopted || !map->nz) { // AIJ's, on current host values (an adopted block's are the parent's)
    PetscCall(GFHostValues(A));
    PetscCall(ValuesIn(gm.coo, v, map->n, false, &vals));
    PetscCall(gm.coo.aij_values(A, vals, imode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const Backend backend = resolve_backend(gm);
  PetscCall(GFSyncNow(A)); // the layout of the COO pattern, with the current values (ADD_VALUES adds to them)
  GFBlock &blk = *gm.diag;
  PetscCheck(blk.fmt && blk.fmt->nnz == (int64_t)map->nz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: the layout does not have the COO pattern's %" PetscInt_FMT " nonzeros", map->nz);
  cudaStream_t s = nullptr;
  if (backend == Backend::cuda) PetscCall(PetscGetCurrentCUDAStream(&s));
  const int64_t *h_jmap = reinterpret_cast<const int64_t *>(map->jmap), *h_perm = reinterpret_cast<const int64_t *>(map->perm);
  GFCoo         &coo    = gm.coo;
  if (coo.map != map || coo.serial != blk.serial) { // PETSc's map on the layout, once per preallocation and build
    coo.unique = map->Atot == (PetscCount)map->nz; // every kept entry its own nonzero: jmap[k] == k
    GF_TRY(PETSC_COMM_SELF, {
      if (backend == Backend::cuda) {
        coo.d_jmap.resize(coo.unique ? 0 : (size_t)map->nz + 1);
        coo.d_perm.resize((size_t)std::max<PetscCount>(map->Atot, 1));
        if (!coo.unique) coo.d_jmap.upload(h_jmap, (size_t)map->nz + 1, s);
        coo.d_perm.upload(h_perm, (size_t)map->Atot, s);
        if (coo.unique) {
          coo.d_slot.resize((size_t)map->n);
          coo_slots(*blk.fmt, coo.d_perm.data(), coo.d_slot.data(), (int64_t)map->n, s);
          coo.d_perm.release();
        }
      } else if (coo.unique) {
        coo.h_slot.resize((size_t)map->n);
        coo_slots(*blk.fmt, h_perm, coo.h_slot.data(), (int64_t)map->n, s);
      }
    });
    coo.map    = map;
    coo.serial = blk.serial;
  }
  PetscCall(ValuesIn(coo, v, map->n, backend == Backend::cuda, &vals));
  const bool add = imode == ADD_VALUES;
  PetscCall(PetscLogGpuTimeBegin());
  if (coo.unique) GF_TRY(PETSC_COMM_SELF, coo_values_unique(*blk.fmt, backend == Backend::cuda ? coo.d_slot.data() : coo.h_slot.data(), (int64_t)map->n, vals, add, s));
  else GF_TRY(PETSC_COMM_SELF, coo_values(*blk.fmt, backend == Backend::cuda ? coo.d_jmap.data() : h_jmap, backend == Backend::cuda ? coo.d_perm.data() : h_perm, vals, add, s));
  PetscCall(PetscLogGpuTimeEnd());
  // The layout holds the matrix's values now (stale host values: the assembly MatSetValuesCOO runs next keeps them).
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(PetscObjectStateGet((PetscObject)A, &blk.state));
  blk.caller_step = false;
  GFMarkHostStale(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatCOOStruct_MPIAIJ's arrays, in GFCoo::d_mpi's order, with their lengths.
enum MpiMap { Ajmap1, Aperm1, Bjmap1, Bperm1, Aimap2, Ajmap2, Aperm2, Bimap2, Bjmap2, Bperm2, Cperm1, kMpiMaps };
static_assert(kMpiMaps == sizeof(GFCoo::d_mpi) / sizeof(GFCoo::d_mpi[0]), "one device array per map");

void MpiMapArrays(const MatCOOStruct_MPIAIJ &m, const PetscCount *a[kMpiMaps], PetscCount len[kMpiMaps])
{
  const PetscCount *arr[kMpiMaps] = {m.Ajmap1, m.Aperm1, m.Bjmap1, m.Bperm1, m.Aimap2, m.Ajmap2, m.Aperm2, m.Bimap2, m.Bjmap2, m.Bperm2, m.Cperm1};
  const PetscCount  n[kMpiMaps]   = {m.Annz + 1, m.Atot1, m.Bnnz + 1, m.Btot1, m.Annz2, m.Annz2 + 1, m.Atot2, m.Bnnz2, m.Bnnz2 + 1, m.Btot2, m.sendlen};
  for (int k = 0; k < kMpiMaps; ++k) a[k] = arr[k], len[k] = n[k];
}

// mpi: both layouts written from v on their backend (off-process entries through PETSc's SF), no
// host AIJ work, where every rank's layouts are current and hold the map's pattern; else MPIAIJ's
// on host values (device values copied to the host). Collective, as MatSetValuesCOO is.
PetscErrorCode MatSetValuesCOO_MPIGF(Mat A, const PetscScalar v[], InsertMode imode)
{
  GFMat               &gm   = gf(A);
  const PetscScalar   *vals = v;
  PetscContainer       container;
  MatCOOStruct_MPIAIJ *map;
  Mat                  Ad, Ao;
  MPI_Comm             comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCheck(imode == INSERT_VALUES || imode == ADD_VALUES, comm, PETSC_ERR_ARG_WRONG, "gpuformats: MatSetValuesCOO takes INSERT_VALUES or ADD_VALUES");
  PetscCall(PetscObjectQuery((PetscObject)A, "__PETSc_MatCOOStruct_Host", (PetscObject *)&container));
  PetscCheck(container, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "gpuformats: MatSetValuesCOO needs MatSetPreallocationCOO first");
  PetscCall(PetscContainerGetPointer(container, &map));
  if (!A->assembled && !A->boundtocpu) { // just preallocated: the pattern, assembled (values 0) for the layouts
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  const Backend backend    = resolve_backend(gm);
  PetscBool     on_layouts = A->boundtocpu ? PETSC_FALSE : PETSC_TRUE;
  if (on_layouts) PetscCall(GFSyncNow(A)); // both layouts of the COO pattern, with the current values (ADD_VALUES adds to them)
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  GFBlock &bd = *gm.diag, &bo = *gm.offd;
  if (on_layouts) {
    PetscBool cd = PETSC_FALSE, co = PETSC_FALSE;
    if (bd.fmt && bo.fmt && bd.fmt->nnz == (int64_t)map->Annz && bo.fmt->nnz == (int64_t)map->Bnnz) {
      PetscCall(GFBlockCurrent(bd, Ad, backend, &cd));
      PetscCall(GFBlockCurrent(bo, Ao, backend, &co));
    }
    on_layouts = cd && co ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &on_layouts, 1, MPI_C_BOOL, MPI_LAND, comm));
  if (!on_layouts) {
    PetscCall(GFHostValues(A));
    PetscCall(ValuesIn(gm.coo, v, map->n, false, &vals));
    PetscCall(gm.coo.aij_values(A, vals, imode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const bool        cuda = backend == Backend::cuda;
  cudaStream_t      s    = nullptr;
  GFCoo            &coo = gm.coo;
  const PetscCount *h[kMpiMaps];
  PetscCount        len[kMpiMaps];
  if (cuda) PetscCall(PetscGetCurrentCUDAStream(&s));
  MpiMapArrays(*map, h, len);
  if (cuda && (coo.map != map || coo.serial != bd.serial || coo.serial_offd != bo.serial)) { // the map on the device, once per preallocation
    GF_TRY(PETSC_COMM_SELF, {
      for (int k = 0; k < kMpiMaps; ++k) {
        coo.d_mpi[k].resize((size_t)len[k]);
        coo.d_mpi[k].upload(reinterpret_cast<const int64_t *>(h[k]), (size_t)len[k], s);
      }
      coo.d_send.resize((size_t)map->sendlen);
      coo.d_recv.resize((size_t)map->recvlen);
    });
  }
  coo.map         = map;
  coo.serial      = bd.serial;
  coo.serial_offd = bo.serial;
  auto P = [&](int k) { return cuda ? coo.d_mpi[k].data() : reinterpret_cast<const int64_t *>(h[k]); };
  double *send = cuda ? coo.d_send.data() : map->sendbuf, *recv = cuda ? coo.d_recv.data() : map->recvbuf;
  const PetscMemType mt = cuda ? PETSC_MEMTYPE_DEVICE : PETSC_MEMTYPE_HOST;
  const bool         add = imode == ADD_VALUES;
  PetscCall(ValuesIn(coo, v, map->n, cuda, &vals));
  PetscCall(PetscLogGpuTimeBegin());
  GF_TRY(PETSC_COMM_SELF, coo_pack(backend, P(Cperm1), (int64_t)map->sendlen, vals, send, s));
  PetscCall(PetscSFReduceWithMemTypeBegin(map->sf, MPIU_SCALAR, mt, send, mt, recv, MPI_REPLACE));
  GF_TRY(PETSC_COMM_SELF, {
    coo_values(*bd.fmt, P(Ajmap1), P(Aperm1), vals, add, s);
    coo_values(*bo.fmt, P(Bjmap1), P(Bperm1), vals, add, s);
  });
  PetscCall(PetscSFReduceEnd(map->sf, MPIU_SCALAR, send, recv, MPI_REPLACE));
  GF_TRY(PETSC_COMM_SELF, {
    coo_add_received(*bd.fmt, P(Aimap2), P(Ajmap2), P(Aperm2), (int64_t)map->Annz2, recv, s);
    coo_add_received(*bo.fmt, P(Bimap2), P(Bjmap2), P(Bperm2), (int64_t)map->Bnnz2, recv, s);
  });
  PetscCall(PetscLogGpuTimeEnd());
  // Both layouts hold the values now (stale host values, kept by the assembly that follows).
  for (auto [blk, aij] : {std::pair<GFBlock *, Mat>{&bd, Ad}, {&bo, Ao}}) {
    PetscCall(PetscObjectStateIncrease((PetscObject)aij));
    PetscCall(PetscObjectStateGet((PetscObject)aij, &blk->state));
    blk->caller_step = false;
  }
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  GFMarkHostStale(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode GFInstallCOO(Mat B, PetscBool install)
{
  GFMat &gm = gf(B);

  PetscFunctionBegin;
  if (!install) {
    PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", gm.coo.aij_preallocation));
    PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", gm.coo.aij_values));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSetPreallocationCOO_C", &gm.coo.aij_preallocation));
  PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSetValuesCOO_C", &gm.coo.aij_values));
  if (!gm.coo.aij_preallocation || !gm.coo.aij_values) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_GF));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", gm.mpi ? MatSetValuesCOO_MPIGF : MatSetValuesCOO_SeqGF));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
