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

namespace gpuformats {

static_assert(sizeof(PetscCount) == sizeof(int64_t), "PETSc's COO map is read as int64_t");

namespace {

PetscErrorCode MatSetPreallocationCOO_GF(Mat A, PetscCount n, PetscInt i[], PetscInt j[])
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  PetscCall(gm.coo.aij_preallocation(A, n, i, j)); // a new pattern: the next use rebuilds the layout
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

// mpi: MPIAIJ's (off-process entries exchanged on the host), on host values.
PetscErrorCode MatSetValuesCOO_MPIGF(Mat A, const PetscScalar v[], InsertMode imode)
{
  GFMat               &gm   = gf(A);
  const PetscScalar   *vals = v;
  PetscMemType         mt   = PETSC_MEMTYPE_HOST;
  PetscContainer       container;
  MatCOOStruct_MPIAIJ *map;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "__PETSc_MatCOOStruct_Host", (PetscObject *)&container));
  PetscCheck(container, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "gpuformats: MatSetValuesCOO needs MatSetPreallocationCOO first");
  if (v) PetscCall(PetscGetMemType(v, &mt));
  if (PetscMemTypeDevice(mt)) {
    PetscCall(PetscContainerGetPointer(container, &map));
    PetscCall(ValuesIn(gm.coo, v, map->n, false, &vals));
  }
  PetscCall(gm.coo.aij_values(A, vals, imode));
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
  if (!gm.mpi) PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_GF));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", gm.mpi ? MatSetValuesCOO_MPIGF : MatSetValuesCOO_SeqGF));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
