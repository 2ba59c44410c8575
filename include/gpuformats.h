/*
  gpuformats: GPU sparse-matrix formats for PETSc.

  Load into any PETSc application, no recompiling:
      -dll_append /path/to/libgpuformats.so -mat_type evchyb -vec_type cuda
  or link the library and call GPUFormatsInitializePackage() after PetscInitialize().
*/
#pragma once
#include <petscmat.h>

/* Matrix types. The root name (e.g. MATEVCHYB) picks the seq or mpi type by communicator size.
   The seq/mpi names begin with "seqaij"/"mpiaij", as PETSc's own AIJ subclasses do (seqaijcusparse),
   so PETSc accepts them wherever it accepts AIJ; the short names of earlier releases ("seqevchyb")
   still create them. */
#define MATEVCHYB    "evchyb"
#define MATSEQEVCHYB "seqaijevchyb"
#define MATMPIEVCHYB "mpiaijevchyb"
#define MATPJDS      "pjds"
#define MATSEQPJDS   "seqaijpjds"
#define MATMPIPJDS   "mpiaijpjds"
#define MATPELLR     "pellr"
#define MATSEQPELLR  "seqaijpellr"
#define MATMPIPELLR  "mpiaijpellr"
#define MATSURAA     "suraa"
#define MATSEQSURAA  "seqaijsuraa"
#define MATMPISURAA  "mpiaijsuraa"
#define MATGPUAUTO    "gpuauto" /* the layout above (or cuSPARSE CSR) the SpMV model predicts fastest, per block */
#define MATSEQGPUAUTO "seqaijgpuauto"
#define MATMPIGPUAUTO "mpiaijgpuauto"

/* The types' manual pages (PETSc doctext). */
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

/* Where a gpuformats matrix runs its products (-mat_gpuformats_backend). */
typedef enum {
  MAT_GPUFORMATS_BACKEND_AUTO, /* cuda when a CUDA device is present, host otherwise */
  MAT_GPUFORMATS_BACKEND_HOST, /* the format's host reference kernels (tests, machines without a GPU) */
  MAT_GPUFORMATS_BACKEND_CUDA  /* the format's CUDA kernels */
} MatGPUFormatsBackend;
PETSC_EXTERN const char *const MatGPUFormatsBackends[];

/* How an mpi type's product gathers the ghost values of x (-mat_gpuformats_halo). */
typedef enum {
  MAT_GPUFORMATS_HALO_AUTO,      /* cuda backend: ipc where every rank is on one node whose GPUs are peers; else nccl for large halos (>= 2^20 ghost values on a rank) where NCCL serves every rank, else mpi; host backend: vecscatter */
  MAT_GPUFORMATS_HALO_NCCL,      /* device to device by NCCL on a stream of its own, overlapped with the local product */
  MAT_GPUFORMATS_HALO_MPI,       /* MPI point-to-point on our own pattern (staged through pinned host memory where MPI is not GPU-aware), overlapped */
  MAT_GPUFORMATS_HALO_VECSCATTER, /* PETSc's VecScatter, as MPIAIJ */
  MAT_GPUFORMATS_HALO_IPC         /* between GPUs of one node by copy engines through CUDA IPC, no SM and no host wait; peers on other nodes by mpi */
} MatGPUFormatsHalo;
PETSC_EXTERN const char *const MatGPUFormatsHalos[];
PETSC_EXTERN PetscErrorCode    MatGPUFormatsSetHalo(Mat, MatGPUFormatsHalo);

PETSC_EXTERN PetscErrorCode GPUFormatsInitializePackage(void);
PETSC_EXTERN PetscErrorCode GPUFormatsFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_gpuformats(void);

PETSC_EXTERN PetscErrorCode MatGPUFormatsSetBackend(Mat, MatGPUFormatsBackend);
PETSC_EXTERN PetscErrorCode MatGPUFormatsGetBackend(Mat, MatGPUFormatsBackend *);
/* Brings the format up to date with the host AIJ data now (rebuild or values-only refresh), as
   MatMult would; for timing conversion apart from the first product. */
PETSC_EXTERN PetscErrorCode MatGPUFormatsSync(Mat);
/* PETSC_TRUE when the matrix is of a gpuformats type (any format, seq or mpi). */
PETSC_EXTERN PetscErrorCode MatGPUFormatsIsType(Mat, PetscBool *);
/* Bytes the product reads from the stored format(s) on this rank (values, indices, metadata). */
PETSC_EXTERN PetscErrorCode MatGPUFormatsGetBytes(Mat, PetscInt64 *);
/* The layout statistics of -mat_view ::ascii_info on this rank, as one JSON object; the string
   belongs to A and stays valid until the next call or MatDestroy(). Collective (it syncs first). */
PETSC_EXTERN PetscErrorCode MatGPUFormatsGetStatistics(Mat, const char **);
/* Seconds of the last build and of the last values-only refresh on this rank, each split into the
   host->device upload and the device work after it (CUDA events); -1 where not measured (host
   backend). MPI types: sum over the local and off-process blocks. */
PETSC_EXTERN PetscErrorCode MatGPUFormatsGetLastTimes(Mat, PetscReal *, PetscReal *, PetscReal *, PetscReal *);

/* The halo path an mpi type's products use on this rank (set by the first product after a new
   nonzero pattern), and, with -mat_gpuformats_halo_measure, the times summed over the measured
   products (CUDA events): halo (pack + exchange + unpack), local product, and how long the product
   waited for the ghosts after its local part; 0 where not measured. */
PETSC_EXTERN PetscErrorCode MatGPUFormatsGetHaloTimes(Mat, MatGPUFormatsHalo *, PetscInt *, PetscReal *, PetscReal *, PetscReal *);

/* Log events (-log_view) */
PETSC_EXTERN PetscLogEvent MAT_GPUFormatsBuild, MAT_GPUFormatsRefresh, MAT_GPUFormatsSpMV, MAT_GPUFormatsViewFill, MAT_GPUFormatsTransposeFill, MAT_GPUFormatsEdit, MAT_GPUFormatsHalo, MAT_GPUFormatsToHost;
