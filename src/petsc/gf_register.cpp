// Package registration: matrix types, root names, log events, the cuSPARSE factorizations of the
// seq types (gf_factor.cpp), and the public MatGPUFormats* API.
#include "gf_mat.hpp"

#include "halo/nccl_comm.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

using namespace gpuformats;

PetscLogEvent      MAT_GPUFormatsBuild, MAT_GPUFormatsRefresh, MAT_GPUFormatsSpMV, MAT_GPUFormatsViewFill, MAT_GPUFormatsTransposeFill, MAT_GPUFormatsEdit, MAT_GPUFormatsHalo, MAT_GPUFormatsToHost;
const char *const  MatGPUFormatsBackends[] = {"auto", "host", "cuda", "MatGPUFormatsBackend", "MAT_GPUFORMATS_BACKEND_", NULL};
const char *const  MatGPUFormatsHalos[]    = {"auto", "nccl", "mpi", "vecscatter", "MatGPUFormatsHalo", "MAT_GPUFORMATS_HALO_", NULL};
static PetscBool   GPUFormatsPackageInitialized = PETSC_FALSE;
static constexpr int kMaxFormats             = 8; // create functions are instantiated per slot

namespace {
// Types are named as PETSc names its own AIJ subclasses (seqaijcusparse, seqaijkokkos): PETSc takes
// a name that begins with "seqaij" / "mpiaij" for AIJ wherever AIJ is acceptable (factorizations,
// GAMG, MatMPIAIJGetSeqAIJ, ...). The short names of earlier releases (seqevchyb) still create them.
std::string seq_names[kMaxFormats], mpi_names[kMaxFormats], seq_aliases[kMaxFormats], mpi_aliases[kMaxFormats];

// The types: every registered format, then gpuauto (the model's choice among them, model/auto.hpp).
const FormatOps *const *glue_formats(int *count)
{
  static std::vector<const FormatOps *> list;
  if (list.empty()) {
    int                     n;
    const FormatOps *const *all = all_formats(&n);
    list.assign(all, all + n);
    list.push_back(&model::gpuauto_ops);
  }
  *count = (int)list.size();
  return list.data();
}

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

PetscErrorCode GFSync_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCall(GFSyncNow(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFGetBytes_Private(Mat A, PetscInt64 *bytes)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  PetscCall(GFSyncNow(A));
  *bytes = 0;
  if (gm.diag->fmt) *bytes += (PetscInt64)gm.diag->fmt->bytes();
  if (gm.offd.fmt) *bytes += (PetscInt64)gm.offd.fmt->bytes();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFGetLastTimes_Private(Mat A, PetscReal *build_upload, PetscReal *build_device, PetscReal *refresh_upload, PetscReal *refresh_device)
{
  PetscReal bu, bd, ru, rd;

  PetscFunctionBegin;
  PetscCall(GFLastTimes(gf(A), &bu, &bd, &ru, &rd));
  if (build_upload) *build_upload = bu;
  if (build_device) *build_device = bd;
  if (refresh_upload) *refresh_upload = ru;
  if (refresh_device) *refresh_device = rd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFSetBackend_Private(Mat A, MatGPUFormatsBackend b)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  if (b == gm.backend_option) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(b != MAT_GPUFORMATS_BACKEND_CUDA || cuda_device_present(), PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "gpuformats: -mat_gpuformats_backend cuda needs a CUDA device and none is visible; use auto or host");
  PetscCall(GFHostValues(A)); // from the layout it drops
  gm.backend_option = b;
  gm.diag->reset();
  gm.offd.reset();
  PetscCall(MatSetVecType(A, resolve_backend(gm) == Backend::cuda ? VECCUDA : VECSTANDARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFGetBackend_Private(Mat A, MatGPUFormatsBackend *b)
{
  PetscFunctionBegin;
  *b = gf(A).backend_option;
  PetscFunctionReturn(PETSC_SUCCESS);
}
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

PetscErrorCode GFComposeCommon(Mat B, PetscBool compose)
{
  PetscObject o = (PetscObject)B;

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsSync_C", compose ? GFSync_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsGetBytes_C", compose ? GFGetBytes_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsGetLastTimes_C", compose ? GFGetLastTimes_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsGetStatistics_C", compose ? GFGetStatistics_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsSetBackend_C", compose ? GFSetBackend_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsGetBackend_C", compose ? GFGetBackend_Private : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
.  -mat_gpuformats_halo <auto,nccl,mpi,vecscatter> - mpi types: how products gather the ghost values (`MatGPUFormatsSetHalo()`)
.  -mat_gpuformats_halo_measure - mpi types: CUDA events around each product's halo (`MatGPUFormatsGetHaloTimes()`)
-  -mat_gpuformats_product_result <aijcusparse,format> - the type of matrix-matrix products computed on the GPU (GAMG's coarse operators)

   Options Database Keys (this type):
+  -mat_evchyb_ell_max_row <128> - rows up to this length go to the ELL part
.  -mat_evchyb_slice_rows <32> - rows per ELL slice
.  -mat_evchyb_block_threads <256> - threads per block of the product's launch
.  -mat_evchyb_sort_window <-1> - rows sorted by length only inside windows (-1 auto, 0 the global sort)
-  -mat_evchyb_narrow_columns <1> - 16-bit column offsets where slices allow

   Level: beginner

   Notes:
   The host AIJ data stays the master copy: the first use after an assembly brings the layout up to
   date (a values-only refresh when the nonzero pattern is unchanged). Factorizations use the
   `MATSOLVERCUSPARSE` package on the cuda backend; `MatMultTranspose()` runs by cuSPARSE on each
   block's transpose, built on the device at the first transposed product. `MatScale()`,
   `MatShift()`, `MatDiagonalSet()`, `MatDiagonalScale()`, `MatZeroEntries()` and `MatAXPY()` with
   the same pattern change the host values and, in place, a layout that held them (no upload; the
   `GFEdit` event). `MatCreateSubMatrix()` and `MatCreateSubMatrices()` return matrices of this type
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

/*@
  MatGPUFormatsSetBackend - chooses where the products of a gpuformats matrix run

  Logically Collective

  Input Parameters:
+ A - a gpuformats matrix (`MATEVCHYB`, `MATPJDS`, ...)
- b - `MAT_GPUFORMATS_BACKEND_AUTO` (cuda if a device is present), `MAT_GPUFORMATS_BACKEND_HOST`
      (the format's host reference kernels) or `MAT_GPUFORMATS_BACKEND_CUDA`

  Options Database Key:
. -mat_gpuformats_backend <auto,host,cuda> - the backend

  Level: intermediate

  Note:
  On the cuda backend, products with host vectors (and matrices bound to the CPU) run PETSc's AIJ product.

.seealso: `MatGPUFormatsGetBackend()`, `MatBindToCPU()`
@*/
PetscErrorCode MatGPUFormatsSetBackend(Mat A, MatGPUFormatsBackend b)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGPUFormatsSetBackend_C", (Mat, MatGPUFormatsBackend), (A, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsGetBackend - the backend option of a gpuformats matrix

  Not Collective

  Input Parameter:
. A - a gpuformats matrix

  Output Parameter:
. b - the backend option

  Level: intermediate

.seealso: `MatGPUFormatsSetBackend()`
@*/
PetscErrorCode MatGPUFormatsGetBackend(Mat A, MatGPUFormatsBackend *b)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGPUFormatsGetBackend_C", (Mat, MatGPUFormatsBackend *), (A, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsSync - brings the format up to date with the host AIJ data now (a rebuild after a
  nonzero-pattern change, a values-only refresh otherwise), as the next product would

  Collective

  Input Parameter:
. A - a gpuformats matrix

  Level: advanced

.seealso: `MatGPUFormatsGetBytes()`
@*/
PetscErrorCode MatGPUFormatsSync(Mat A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGPUFormatsSync_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsIsType - whether a matrix is of a gpuformats type (any format, seq or mpi)

  Not Collective

  Input Parameter:
. A - a matrix

  Output Parameter:
. flg - `PETSC_TRUE` for `MATEVCHYB`, `MATPJDS`, `MATPELLR`, `MATSURAA` and their seq/mpi types

  Level: beginner

  Note:
  The other `MatGPUFormats` functions need such a matrix; a program that may hold others asks first.

.seealso: `MATEVCHYB`, `MatGPUFormatsGetBytes()`, `MatGPUFormatsGetLastTimes()`
@*/
PetscErrorCode MatGPUFormatsIsType(Mat A, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  *flg = ((PetscObject)A)->type_name && format_of_type(((PetscObject)A)->type_name) && A->spptr ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsGetBytes - bytes one product reads from the stored format(s) on this rank

  Not Collective

  Input Parameter:
. A - a gpuformats matrix

  Output Parameter:
. bytes - values, indices and metadata of the local and off-process blocks

  Level: intermediate

.seealso: `MatGPUFormatsSync()`
@*/
PetscErrorCode MatGPUFormatsGetBytes(Mat A, PetscInt64 *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGPUFormatsGetBytes_C", (Mat, PetscInt64 *), (A, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatGPUFormatsGetStatistics - the layout statistics that `-mat_view ::ascii_info` prints, for this
  rank, as one JSON object

  Collective

  Input Parameter:
. A - a gpuformats matrix

  Output Parameter:
. json - the statistics; the string belongs to `A` and stays valid until the next call or `MatDestroy()`

  Level: intermediate

  Notes:
  Brings the layout up to date first, as `MatGPUFormatsSync()` does (hence collective for the mpi
  types). The object holds `type`, `backend` (the option: auto, host or cuda), `local` (the local
  block) and, for the mpi types, `off_process` and `halo` (`path`, `why`). A block holds `built`,
  `builds`, `refreshes`, `edits`, `products`, `to_host` (copies of edited values back to the host
  AIJ) and, once built, `layout`, `format`, `backend`, `rows`, `cols`, `nonzeros`, `stored_slots`,
  `bytes` (read per product), `csr_bytes`, `map_bytes`, `last_build` and `last_refresh` (`upload_s`,
  `device_s`, or null where not measured), `transposed_bytes` where a transposed layout exists,
  and `layout_stats`: the format's own statistics as strings.

.seealso: `MatGPUFormatsGetBytes()`, `MatGPUFormatsGetLastTimes()`, `MatView()`
@*/
PetscErrorCode MatGPUFormatsGetStatistics(Mat A, const char **json)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(json, 2);
  PetscUseMethod(A, "MatGPUFormatsGetStatistics_C", (Mat, const char **), (A, json));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsGetLastTimes - device-side times of the last conversion (build of the format) and of
  the last values-only refresh of a gpuformats matrix on this rank, each split into the upload of
  the host data and the device work after it

  Not Collective

  Input Parameter:
. A - a gpuformats matrix (`MATEVCHYB`, `MATPJDS`, ...)

  Output Parameters:
+ build_upload   - seconds the last build spent copying the host CSR block(s) to the device
. build_device   - seconds the stream then worked until the layout was complete
. refresh_upload - seconds the last values-only refresh spent copying the host values to the device
- refresh_device - seconds of its scatter into the layout through the slot map

  Level: advanced

  Notes:
  Any output may be `NULL`. A time is -1 where it was not measured: on the host backend, before
  the first build or refresh, or after the format was dropped (a failure, a backend or option
  change). A build forgets the previous refresh.

  The times come from CUDA events recorded on the stream the work ran on, so measuring costs no
  host synchronisation; this call waits until the timed work has finished on the device. The
  device part spans everything the stream did after the upload, host work the builder interleaves
  (allocations, reading back sizes) included: an upper bound on the kernels' time. The upload is
  from the AIJ arrays in host memory, staged through pinned buffers by `-mat_gpuformats_upload_threads`
  host threads (1: a pageable `cudaMemcpyAsync`).

  For the mpi types (`MATMPIEVCHYB`, ...) each time is the SUM over this rank's local and
  off-process blocks that took part in the last build (refresh): the two run one after the other
  on the same stream. Ranks differ; reduce over them as needed (the benchmark takes the maximum).

.seealso: `MatGPUFormatsSync()`, `MatConvert()`, `MatView()` with `-mat_view ::ascii_info`
@*/
/*@
  MatGPUFormatsSetHalo - how an mpi gpuformats matrix's products gather the ghost values of x

  Logically Collective

  Input Parameters:
+ A    - a gpuformats matrix
- halo - `MAT_GPUFORMATS_HALO_AUTO` (default: on the GPU nccl for large halos where NCCL serves every rank, else mpi; vecscatter on the host backend),
         `MAT_GPUFORMATS_HALO_NCCL`, `MAT_GPUFORMATS_HALO_MPI` or `MAT_GPUFORMATS_HALO_VECSCATTER`

  Options Database Key:
. -mat_gpuformats_halo <auto,nccl,mpi,vecscatter> - the same, read by `MatSetFromOptions()`

  Level: intermediate

  Notes:
  The choice takes effect at the next product, collectively: NCCL asked for where it cannot serve
  every rank (the host backend, two ranks on one GPU, no NCCL library) is an error there. A seq
  matrix ignores it. `-mat_view ::ascii_info` says which exchange runs and why.

.seealso: `MatGPUFormatsHalo`, `MatGPUFormatsGetHaloTimes()`, `MATEVCHYB`
@*/
PetscErrorCode MatGPUFormatsSetHalo(Mat A, MatGPUFormatsHalo halo)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, halo, 2);
  PetscCall(MatGPUFormatsIsType(A, &ours));
  PetscCheck(ours, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatGPUFormatsSetHalo: matrix type %s is not a gpuformats type (e.g. %s, %s)", ((PetscObject)A)->type_name ? ((PetscObject)A)->type_name : "(not set)", MATEVCHYB, MATPJDS);
  PetscCheck(halo >= MAT_GPUFORMATS_HALO_AUTO && halo <= MAT_GPUFORMATS_HALO_VECSCATTER, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "MatGPUFormatsSetHalo: unknown halo %d", (int)halo);
  gpuformats::GFSetHalo(gpuformats::gf(A), halo, gpuformats::gf(A).halo_measure);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsGetHaloTimes - which halo exchange an mpi gpuformats matrix's products use on this
  rank, and the times measured with `-mat_gpuformats_halo_measure`

  Not Collective

  Input Parameter:
. A - a gpuformats matrix

  Output Parameters:
+ used     - the exchange in use (`MAT_GPUFORMATS_HALO_VECSCATTER` for a seq matrix, one rank, or before the first product)
. products - products measured on this rank (0 without `-mat_gpuformats_halo_measure`, or with the vecscatter exchange)
. halo     - seconds, summed over them, from the product's start to the ghosts' arrival (pack, exchange, unpack)
. local    - seconds, summed, from the product's start to the end of the local block's product
- exposed  - seconds, summed, that the product's stream waited for the ghosts after its local product

  Level: advanced

  Notes:
  Any output may be `NULL`. The fraction of the halo hidden behind the local product is
  1 - exposed / halo. Measuring records 4 CUDA events per product and waits, at the next product,
  for the previous one to finish: use it to study overlap, not to time solves.

.seealso: `MatGPUFormatsHalo`, `MATEVCHYB`, `MatView()` with `-mat_view ::ascii_info`
@*/
PetscErrorCode MatGPUFormatsGetHaloTimes(Mat A, MatGPUFormatsHalo *used, PetscInt *products, PetscReal *halo, PetscReal *local, PetscReal *exposed)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatsIsType(A, &ours));
  PetscCheck(ours, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatGPUFormatsGetHaloTimes: matrix type %s is not a gpuformats type (e.g. %s, %s)", ((PetscObject)A)->type_name ? ((PetscObject)A)->type_name : "(not set)", MATEVCHYB, MATPJDS);
  if (gpuformats::gf(A).mpi) PetscCall(gpuformats::GFMPIHaloTimes(A, used, products, halo, local, exposed));
  else {
    if (used) *used = MAT_GPUFORMATS_HALO_VECSCATTER;
    if (products) *products = 0;
    if (halo) *halo = 0;
    if (local) *local = 0;
    if (exposed) *exposed = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatsGetLastTimes(Mat A, PetscReal *build_upload, PetscReal *build_device, PetscReal *refresh_upload, PetscReal *refresh_device)
{
  PetscErrorCode (*f)(Mat, PetscReal *, PetscReal *, PetscReal *, PetscReal *) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatGPUFormatsGetLastTimes_C", &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatGPUFormatsGetLastTimes: matrix type %s is not a gpuformats type (e.g. %s, %s)", ((PetscObject)A)->type_name ? ((PetscObject)A)->type_name : "(not set)", MATEVCHYB, MATPJDS);
  PetscCall((*f)(A, build_upload, build_device, refresh_upload, refresh_device));
  PetscFunctionReturn(PETSC_SUCCESS);
}
