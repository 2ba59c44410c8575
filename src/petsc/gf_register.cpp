// Package registration: matrix types, root names, their man pages, log events, and the cuSPARSE
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

/*MC
   MATEVCHYB - MATEVCHYB = "evchyb" - A `MATAIJ` matrix whose products run on the GPU in the EVC-HYB
   format (Guo, Gropp and Olson): rows sorted by length, rows of up to `ell_max_row` entries in ELL
   slices of 32 rows, longer rows in warp-aligned vectorized CSR. `MATSEQEVCHYB` ("seqaijevchyb") on
   one process, `MATMPIEVCHYB` ("mpiaijevchyb") otherwise, both with the local and off-process
   blocks in the format.

   Options Database Keys (every type):
+  -mat_type <type> - the root name (e.g. `evchyb`, or `aijevchyb`, the name a `DM` takes as AIJ for its interpolation)
.  -mat_gpuformats_backend <auto,host,cuda> - where products run; auto: cuda when a device is present
.  -mat_gpuformats_upload_threads <n> - host threads staging the AIJ arrays into pinned buffers for their upload
.  -mat_gpuformats_halo <auto,nccl,mpi,vecscatter,ipc> - mpi types: how products gather the ghost values (`MatGPUFormatsSetHalo()`)
.  -mat_gpuformats_halo_measure - mpi types: CUDA events around each product's halo (`MatGPUFormatsGetHaloTimes()`)
.  -mat_gpuformats_halo_overlap <true> - mpi types: the exchange beside the local product (false: before it, alone)
.  -mat_gpuformats_halo_node_ranks <0> - mpi types, ipc: ranks per node (0: the ranks that share memory)
-  -mat_gpuformats_product_result <aijcusparse,format> - the type of matrix-matrix products computed on the GPU (GAMG's coarse operators)

   Options Database Keys (this type):
+  -mat_evchyb_ell_max_row <128> - rows up to this length go to the ELL part
.  -mat_evchyb_slice_rows <32> - rows per ELL slice
.  -mat_evchyb_block_threads <256> - threads per block of the product's launch
.  -mat_evchyb_sort_window <-1> - rows sorted by length only inside windows (-1 auto, 0 the global sort)
-  -mat_evchyb_narrow_columns <1> - 16-bit column offsets where slices allow

   Level: beginner

   Notes:
   After an assembly the host AIJ data holds the values: the first use brings the layout up to date
   (a values-only refresh when the nonzero pattern is unchanged). Factorizations use the
   `MATSOLVERCUSPARSE` package on the cuda backend; `MatMultTranspose()` runs by cuSPARSE on each
   block's transpose, built on the device at the first transposed product. `MatScale()`,
   `MatShift()`, `MatDiagonalSet()`, `MatDiagonalScale()`, `MatZeroEntries()` and `MatAXPY()` with
   the same pattern change, in place, a layout that held the values (no upload; the `GFEdit`
   event): the layout alone on the seq types, whose host values then come back at the first host
   read, and the host values too on the mpi types. On the seq types, `MatZeroRowsColumns()` and
   `MatZeroRows()` with `MAT_KEEP_NONZERO_PATTERN` (Dirichlet rows) change the layout alone as well,
   with b fixed on the device. `MatCreateSubMatrix()` and `MatCreateSubMatrices()` return matrices of this type
   with these options. `-mat_view ::ascii_info` prints the layout statistics.

.seealso: [](ch_matrices), `Mat`, `MATPJDS`, `MATPELLR`, `MATSURAA`, `MATAIJCUSPARSE`, `MATSELLCUDA`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATPJDS - MATPJDS = "pjds" - A `MATAIJ` matrix whose products run on the GPU in the pJDS format
   (Kreutzer et al.): rows sorted by length, padded only within blocks of 32 rows, stored by jagged
   diagonal. `MATSEQPJDS` ("seqaijpjds") on one process, `MATMPIPJDS` ("mpiaijpjds") otherwise.

   Options Database Keys (every type): those of `MATEVCHYB` (`-mat_type`, `-mat_gpuformats_*`).

   Options Database Keys (this type):
+  -mat_pjds_block_rows <32> - rows per padded block
.  -mat_pjds_sort_window <-1> - rows sorted by length only inside windows (-1 auto, 0 all rows)
.  -mat_pjds_long_row <-1> - rows longer than this leave the jagged diagonals for a CSR part (-1 auto, 0 none)
-  -mat_pjds_narrow_columns <1> - 16-bit column offsets in the blocks that allow them

   Level: beginner

   Note:
   As `MATEVCHYB`: AIJ is the master copy, cuSPARSE factorizations and transposed products.

.seealso: [](ch_matrices), `Mat`, `MATEVCHYB`, `MATPELLR`, `MATSURAA`, `MATAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATPELLR - MATPELLR = "pellr" - A `MATAIJ` matrix whose products run on the GPU in the PELLR
   format (Wang and Gu): rows sorted by length, stored as ELLPACK-R. `MATSEQPELLR` ("seqaijpellr") on
   one process, `MATMPIPELLR` ("mpiaijpellr") otherwise.

   Options Database Keys (every type): those of `MATEVCHYB` (`-mat_type`, `-mat_gpuformats_*`).

   Options Database Keys (this type):
+  -mat_pellr_max_fill <3> - refuse a matrix (a `PETSC_ERR_SUP` error naming the formats that fit) when padding to the longest row exceeds this multiple of the nonzeros
.  -mat_pellr_rl_per_warp <1> - one row-length entry per warp instead of per row
-  -mat_pellr_permute <1> - 0: the identity order, plain ELLPACK-R

   Level: beginner

   Note:
   The one format that refuses matrices (e.g. some of `PCMG`'s interpolations and `PCGAMG`'s coarse
   operators); the AIJ matrix is unchanged and usable after a refusal.

.seealso: [](ch_matrices), `Mat`, `MATEVCHYB`, `MATPJDS`, `MATSURAA`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATSURAA - MATSURAA = "suraa" - A `MATAIJ` matrix whose products run on the GPU in the SURAA
   format (Muhammed et al.): rows sorted and cut into Freedman-Diaconis segments, run by sub-warp,
   vector and dynamic-parallelism kernels. `MATSEQSURAA` ("seqaijsuraa") on one process,
   `MATMPISURAA` ("mpiaijsuraa") otherwise.

   Options Database Keys (every type): those of `MATEVCHYB` (`-mat_type`, `-mat_gpuformats_*`).

   Options Database Keys (this type):
+  -mat_suraa_segment_rows <0> - rows per segment (0: the Freedman-Diaconis rule)
.  -mat_suraa_max_child_threads <2048> - rows the dynamic kernel (G1) takes at most (0: no G1)
.  -mat_suraa_dynamic <0> - 1: G1 by dynamic parallelism; 0: host launches
.  -mat_suraa_streams <3> - extra CUDA streams for the G3 and G2 launches
.  -mat_suraa_subwarp_entries <2> - entries per lane of the short-row group
-  -mat_suraa_window <4096> - matrix rows per window of the tile launch (0: the paper's per-segment launches)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATEVCHYB`, `MATPJDS`, `MATPELLR`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATGPUAUTO - MATGPUAUTO = "gpuauto" - A `MATAIJ` matrix whose products run on the GPU in the layout
   the SpMV performance model predicts fastest for it: EVC-HYB, pJDS, PELLR, SURAA, or cuSPARSE CSR
   (what `MATAIJCUSPARSE` runs). The local and off-process blocks of `MATMPIGPUAUTO` are chosen apart.
   `MATSEQGPUAUTO` ("seqaijgpuauto") on one process, `MATMPIGPUAUTO` ("mpiaijgpuauto") otherwise.

   Options Database Keys (every type): those of `MATEVCHYB` (`-mat_type`, `-mat_gpuformats_*`).

   Options Database Keys (this type):
+  -mat_gpuauto_model <file> - the model to choose with (default: the calibrated model of this GPU, found by its name)
.  -mat_gpuauto_candidates <evchyb,pjds,pellr,suraa,cusparse_csr> - the layouts it may choose
-  -mat_gpuauto_strip_rows <0> - rows per strip of the model's features (0: the model's, SMs x threads per SM)

   Level: beginner

   Notes:
   At each build (the first use after an assembly that changed the nonzero pattern) it reads the
   features of each block (row lengths, longest row, column span, the 32-byte sectors of x its row
   groups touch) from the CSR uploaded for the build, on the device, predicts the time of one
   product in every candidate layout with the model, and builds the least predicted from the same
   upload (where PELLR refuses, the next). The models of the H100 and the H200 come with the library
   (share/gpuformats/models/); for another GPU run `bin/gpuformats_calibrate` once (a few minutes) and
   point `-mat_gpuauto_model` or `GPUFORMATS_MODEL_DIR` at its file. Without one the default model
   picks cuSPARSE CSR, and `-mat_view ::ascii_info` says so. `-mat_view ::ascii_info` shows the
   features, every prediction, the choice, its cost, and the partition of the row strips the
   paper's dynamic programming finds (one layout per block is built). `bin/gpuformats_advise` gives
   the same for a matrix file before an application is changed.

.seealso: [](ch_matrices), `Mat`, `MATEVCHYB`, `MATPJDS`, `MATPELLR`, `MATSURAA`, `MATAIJCUSPARSE`
M*/

/*MC
   MATSEQEVCHYB - MATSEQEVCHYB = "seqaijevchyb" - A `MATSEQAIJ` matrix whose products run on the GPU in the
   EVC-HYB format. `MatSetType()` with `MATSEQEVCHYB`, or `-mat_type evchyb` on one process, makes it. It is also the
   type of the local blocks of `PCBJACOBI` and `PCASM` when the parallel matrix is `MATMPIEVCHYB`; its
   factorizations use `MATSOLVERCUSPARSE` on the cuda backend.

   Options Database Keys:
.  -mat_type seqaijevchyb - sets the type; the format's options are those of `MATEVCHYB`

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATEVCHYB`, `MATMPIEVCHYB`, `MATSEQAIJ`, `MATSEQAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATMPIEVCHYB - MATMPIEVCHYB = "mpiaijevchyb" - A `MATMPIAIJ` matrix whose local (diagonal) and off-process
   blocks are both held in the EVC-HYB format; `MatMult()` overlaps the halo exchange (NCCL between GPUs where it serves,
   `-mat_gpuformats_halo`) with the local block's product. `MatSetType()` with `MATMPIEVCHYB`, or `-mat_type evchyb` on several processes, makes it.

   Options Database Keys:
.  -mat_type mpiaijevchyb - sets the type; the format's options are those of `MATEVCHYB`

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATEVCHYB`, `MATSEQEVCHYB`, `MATMPIAIJ`, `MATMPIAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATSEQPJDS - MATSEQPJDS = "seqaijpjds" - A `MATSEQAIJ` matrix whose products run on the GPU in the
   pJDS format. `MatSetType()` with `MATSEQPJDS`, or `-mat_type pjds` on one process, makes it. It is also the
   type of the local blocks of `PCBJACOBI` and `PCASM` when the parallel matrix is `MATMPIPJDS`; its
   factorizations use `MATSOLVERCUSPARSE` on the cuda backend.

   Options Database Keys:
.  -mat_type seqaijpjds - sets the type; the format's options are those of `MATPJDS`

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATPJDS`, `MATMPIPJDS`, `MATSEQAIJ`, `MATSEQAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATMPIPJDS - MATMPIPJDS = "mpiaijpjds" - A `MATMPIAIJ` matrix whose local (diagonal) and off-process
   blocks are both held in the pJDS format; `MatMult()` overlaps the halo exchange (NCCL between GPUs where it serves,
   `-mat_gpuformats_halo`) with the local block's product. `MatSetType()` with `MATMPIPJDS`, or `-mat_type pjds` on several processes, makes it.

   Options Database Keys:
.  -mat_type mpiaijpjds - sets the type; the format's options are those of `MATPJDS`

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATPJDS`, `MATSEQPJDS`, `MATMPIAIJ`, `MATMPIAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATSEQPELLR - MATSEQPELLR = "seqaijpellr" - A `MATSEQAIJ` matrix whose products run on the GPU in the
   PELLR format. `MatSetType()` with `MATSEQPELLR`, or `-mat_type pellr` on one process, makes it. It is also the
   type of the local blocks of `PCBJACOBI` and `PCASM` when the parallel matrix is `MATMPIPELLR`; its
   factorizations use `MATSOLVERCUSPARSE` on the cuda backend.

   Options Database Keys:
.  -mat_type seqaijpellr - sets the type; the format's options are those of `MATPELLR`

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATPELLR`, `MATMPIPELLR`, `MATSEQAIJ`, `MATSEQAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATMPIPELLR - MATMPIPELLR = "mpiaijpellr" - A `MATMPIAIJ` matrix whose local (diagonal) and off-process
   blocks are both held in the PELLR format; `MatMult()` overlaps the halo exchange (NCCL between GPUs where it serves,
   `-mat_gpuformats_halo`) with the local block's product. `MatSetType()` with `MATMPIPELLR`, or `-mat_type pellr` on several processes, makes it.

   Options Database Keys:
.  -mat_type mpiaijpellr - sets the type; the format's options are those of `MATPELLR`

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATPELLR`, `MATSEQPELLR`, `MATMPIAIJ`, `MATMPIAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATSEQSURAA - MATSEQSURAA = "seqaijsuraa" - A `MATSEQAIJ` matrix whose products run on the GPU in the
   SURAA format. `MatSetType()` with `MATSEQSURAA`, or `-mat_type suraa` on one process, makes it. It is also the
   type of the local blocks of `PCBJACOBI` and `PCASM` when the parallel matrix is `MATMPISURAA`; its
   factorizations use `MATSOLVERCUSPARSE` on the cuda backend.

   Options Database Keys:
.  -mat_type seqaijsuraa - sets the type; the format's options are those of `MATSURAA`

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSURAA`, `MATMPISURAA`, `MATSEQAIJ`, `MATSEQAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

/*MC
   MATMPISURAA - MATMPISURAA = "mpiaijsuraa" - A `MATMPIAIJ` matrix whose local (diagonal) and off-process
   blocks are both held in the SURAA format; `MatMult()` overlaps the halo exchange (NCCL between GPUs where it serves,
   `-mat_gpuformats_halo`) with the local block's product. `MatSetType()` with `MATMPISURAA`, or `-mat_type suraa` on several processes, makes it.

   Options Database Keys:
.  -mat_type mpiaijsuraa - sets the type; the format's options are those of `MATSURAA`

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSURAA`, `MATSEQSURAA`, `MATMPIAIJ`, `MATMPIAIJCUSPARSE`, `GPUFormatsInitializePackage()`
M*/

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
