// Package registration: matrix types, root names, log events, and the cuSPARSE
// factorizations of the seq types (gf_factor.cpp). The public MatGPUFormats* API: gf_api.cpp.
#include "gf_mat.hpp"

#include "halo/nccl_comm.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

using namespace gpuformats;

PetscLogEvent      MAT_GPUFormatsBuild, MAT_GPUFormatsRefresh, MAT_GPUFormatsSpMV, MAT_GPUFormatsViewFill, MAT_GPUFormatsTransposeFill, MAT_GPUFormatsEdit, MAT_GPUFormatsHalo, MAT_GPUFormatsToHost;
const char *const  MatGPUFormatsBackends[] = {"auto", "host", "cuda", "MatGPUFormatsBackend", "MAT_GPUFORMATS_BACKEND_", NULL};
const char *const  MatGPUFormatsHalos[]    = {"auto", "nccl", "mpi", "vecscatter", "ipc", "MatGPUFormatsHalo", "MAT_GPUFORMATS_HALO_", NULL};
static PetscBool   GPUFormatsPackageInitialized = PETSC_FALSE;
static constexpr int kMaxFormats             = 8; // create functions are instantiated per slot

namespace {
// Types are named as PETSc names its own AIJ subclasses (seqaijcusparse, seqaijkokkos): PETSc takes
// a name that begins with "seqaij" / "mpiaij" for AIJ wherever AIJ is acceptable (factorizations,
// GAMG, MatMPIAIJGetSeqAIJ, ...). The short names of earlier releases (seqevchyb) still create them.
std::string seq_names[kMaxFormats], mpi_names[kMaxFormats], seq_aliases[kMaxFormats], mpi_aliases[kMaxFormats];

const FormatOps *const *glue_formats(int *count) { return layout::types(count); }

int index_of(const FormatOps *ops)
{
  int                     n;
  const FormatOps *const *all = glue_formats(&n);
  for (int i = 0; i < n; ++i)
    if (all[i] == ops) return i;
  return -1;
}

// MatRegister takes a plain function per type: one instantiation per format slot.
template <int I>
PetscErrorCode MatCreate_SeqSlot(Mat B)
{
  int n;
  return MatCreate_SeqGF(B, glue_formats(&n)[I]);
}
template <int I>
PetscErrorCode MatCreate_MPISlot(Mat B)
{
  int n;
  return MatCreate_MPIGF(B, glue_formats(&n)[I]);
}
template <int... I>
constexpr auto seq_creators(std::integer_sequence<int, I...>)
{
  return std::array<PetscErrorCode (*)(Mat), sizeof...(I)>{{&MatCreate_SeqSlot<I>...}};
}
template <int... I>
constexpr auto mpi_creators(std::integer_sequence<int, I...>)
{
  return std::array<PetscErrorCode (*)(Mat), sizeof...(I)>{{&MatCreate_MPISlot<I>...}};
}
constexpr auto kSeqCreate = seq_creators(std::make_integer_sequence<int, kMaxFormats>{});
constexpr auto kMPICreate = mpi_creators(std::make_integer_sequence<int, kMaxFormats>{});

} // namespace

namespace gpuformats {

const FormatOps *format_of_type(const char *type)
{
  int                     n;
  const FormatOps *const *all = glue_formats(&n);
  std::string             t(type ? type : "");
  for (int i = 0; i < n; ++i) {
    const std::string root = all[i]->root;
    if (t == root || t == "aij" + root || t == "seqaij" + root || t == "mpiaij" + root || t == "seq" + root || t == "mpi" + root) return all[i];
  }
  return nullptr;
}
const char *seq_type_name(const FormatOps *ops) { return seq_names[index_of(ops)].c_str(); }
const char *mpi_type_name(const FormatOps *ops) { return mpi_names[index_of(ops)].c_str(); }
const char *seq_alias_name(const FormatOps *ops) { return seq_aliases[index_of(ops)].c_str(); }
const char *mpi_alias_name(const FormatOps *ops) { return mpi_aliases[index_of(ops)].c_str(); }

} // namespace gpuformats

/*@C
  GPUFormatsFinalizePackage - called by `PetscFinalize()`; frees what `GPUFormatsInitializePackage()` set up

  Level: developer

.seealso: `GPUFormatsInitializePackage()`
@*/
PetscErrorCode GPUFormatsFinalizePackage(void)
{
  PetscFunctionBegin;
  GPUFormatsPackageInitialized = PETSC_FALSE;
  release_upload_staging(); // the pinned upload buffers, if any upload was staged
  nccl_release_all();       // the halo's NCCL communicators, if any was made
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  GPUFormatsInitializePackage - registers the gpuformats matrix types (`MATEVCHYB`, `MATPJDS`,
  `MATPELLR`, `MATSURAA` and their seq/mpi variants), their log events, and the `MATSOLVERCUSPARSE`
  LU, Cholesky, ILU and ICC factorizations of the sequential types (the default on the cuda backend;
  PETSc's own, `MATSOLVERPETSC`, serve them as the `MATSEQAIJ` they are on the host backend).

  Not Collective

  Level: beginner

  Note:
  Called automatically when the library is loaded with `-dll_append /path/libgpuformats.so`;
  applications that link the library call it once after `PetscInitialize()`.

.seealso: `PetscDLLibraryRegister_gpuformats()`, `MatSetType()`, `MATEVCHYB`
@*/
PetscErrorCode GPUFormatsInitializePackage(void)
{
  int                     n;
  const FormatOps *const *all = glue_formats(&n);

  PetscFunctionBegin;
  if (GPUFormatsPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  GPUFormatsPackageInitialized = PETSC_TRUE;
  PetscCheck(n <= kMaxFormats, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: raise kMaxFormats to %d", n);
  PetscCall(MatInitializePackage());
  PetscCall(PetscLogEventRegister("GFBuild", MAT_CLASSID, &MAT_GPUFormatsBuild));
  PetscCall(PetscLogEventRegister("GFRefresh", MAT_CLASSID, &MAT_GPUFormatsRefresh));
  PetscCall(PetscLogEventRegister("GFSpMV", MAT_CLASSID, &MAT_GPUFormatsSpMV));
  PetscCall(PetscLogEventRegister("GFViewFill", MAT_CLASSID, &MAT_GPUFormatsViewFill)); // values of the factorizations' cuSPARSE view from the format
  PetscCall(PetscLogEventRegister("GFTransposeFill", MAT_CLASSID, &MAT_GPUFormatsTransposeFill)); // the transposed layout made, or its values gathered from the format
  PetscCall(PetscLogEventRegister("GFEdit", MAT_CLASSID, &MAT_GPUFormatsEdit)); // an in-place value change of a layout (MatScale, MatShift, ...)
  PetscCall(PetscLogEventRegister("GFHalo", MAT_CLASSID, &MAT_GPUFormatsHalo)); // host time of an mpi product's own halo exchange (src/halo/): queueing it, and (mpi path) the messages
  PetscCall(PetscLogEventRegister("GFToHost", MAT_CLASSID, &MAT_GPUFormatsToHost)); // a seq layout's values copied back to the host AIJ array, which an in-place edit left stale (gf_values.cpp)
  for (int i = 0; i < n; ++i) {
    seq_names[i]   = std::string(MATSEQAIJ) + all[i]->root;
    mpi_names[i]   = std::string(MATMPIAIJ) + all[i]->root;
    seq_aliases[i] = std::string("seq") + all[i]->root;
    mpi_aliases[i] = std::string("mpi") + all[i]->root;
    PetscCall(MatRegister(seq_names[i].c_str(), kSeqCreate[i]));
    PetscCall(MatRegister(mpi_names[i].c_str(), kMPICreate[i]));
    PetscCall(MatRegister(seq_aliases[i].c_str(), kSeqCreate[i]));
    PetscCall(MatRegister(mpi_aliases[i].c_str(), kMPICreate[i]));
    PetscCall(MatRegisterRootName(all[i]->root, seq_names[i].c_str(), mpi_names[i].c_str()));
    // "aijevchyb", as "aijcusparse": a DM treats a type whose name begins with "aij" as AIJ (DMDA's
    // interpolation takes -dm_mat_type only then; with "evchyb" it is plain AIJ, on the host).
    PetscCall(MatRegisterRootName(("aij" + std::string(all[i]->root)).c_str(), seq_names[i].c_str(), mpi_names[i].c_str()));
    PetscCall(GFRegisterFactors(seq_names[i].c_str()));
  }
  PetscCall(PetscRegisterFinalize(GPUFormatsFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscDLLibraryRegister_gpuformats - entry point PETSc calls when it loads libgpuformats.so
  (`-dll_append`, `PETSC_OPTIONS`, or `~/.petscrc`)

  Level: developer

.seealso: `GPUFormatsInitializePackage()`
@*/
PetscErrorCode PetscDLLibraryRegister_gpuformats(void)
{
  PetscFunctionBegin;
  PetscCall(GPUFormatsInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
