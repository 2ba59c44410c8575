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
