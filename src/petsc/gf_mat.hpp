// The PETSc glue, written once for all formats. A gpuformats matrix IS a SeqAIJ / MPIAIJ matrix
// that also keeps its block(s) in a format. What it overrides runs on the layout: products, the
// diagonal, transposed products (src/transpose), factorizations through cuSPARSE (gf_factor.cpp),
// matrix products, in-place edits and COO assembly; everything else is AIJ's, unchanged (MatGetRow,
// viewers, ...). Where a layout holds newer values than the host AIJ (an edit or a COO assembly ran
// on the layout alone), the host values are brought back before any AIJ code reads them
// (gf_values.cpp).
//
//   seq<fmt>:  Mat (SeqAIJ data) --spptr--> GFMat { diag: GFBlock }
//   mpi<fmt>:  Mat (MPIAIJ data) --spptr--> GFMat { diag: GFBlock (local block A_d),
//                                                   offd: GFBlock (off-process block A_o, guarded),
//                                                   halo: VecScatter x -> ghost values,
//                                                   dhalo: the product's own exchange (src/halo/) }
//
// As mpiaijcusparse keeps seqaijcusparse blocks, the MPIAIJ data's local block A_d is itself a
// seq<fmt> matrix (converted in place, "adopted", at the first sync after MPIAIJ made it) that
// shares the parent's diag block: what PETSc hands out as the diagonal block (block Jacobi, and the
// type ASM's sub-matrices take) runs its products and cuSPARSE factorizations from the same layout.
// The parent syncs it, collectively; A_d alone syncs it only where used alone (a sub-solve).
// A_o stays a plain SeqAIJ (MPIAIJ remakes it, as SeqAIJ, whenever a new off-process column comes),
// with its value accessors guarded (gf_values.cpp): a read brings the offd block's values back.
//
// GFBlock tracks the AIJ block's identity, object state and nonzero state: a new nonzero state (or
// a new block object) rebuilds the format, a new state alone refreshes the values through
// slot_of_csr (no rebuild).
#pragma once
#include <gpuformats.h>
#include <petsc/private/matimpl.h>

#include "core/device_buffer.hpp"
#include "core/stage_timer.hpp"
#include "formats/format.hpp"
#include "halo/halo.hpp"
#include "layout/layout.hpp"
#include "transpose/transpose.hpp"
#include "trisolve/trisolve.hpp"

#include <memory>
#include <string>
#include <vector>

// Exported by libpetsc but declared only in PETSc's source tree.
PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJ(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJ(Mat);

namespace gpuformats {

// A block's last GPU build or values-only refresh, split into upload and device work by CUDA
// events (core/stage_timer.hpp), and the sync round (GFMat::syncs) it ran in: an MPI matrix
// adds up the blocks of one round only.
struct GFStageTime {
  StageTimer timer;
  PetscInt   round = -1;
};

struct GFBlock {
  std::unique_ptr<FormatBlock> fmt;
  Backend                      backend  = Backend::host;
  PetscObjectState             state    = -1; // AIJ block state when fmt was last synced
  PetscObjectState             nzstate  = -1;
  PetscObjectId                src      = 0;  // the AIJ block it was built from (MPIAIJ replaces its blocks)
  int32_t                      block_bs = 0;  // > 0: fmt is BELL with this block size (select/block_layout.hpp)
  std::string                  layout_name;   // layout::Layout::name, for -mat_view and -info
  std::string                  layout_reason; // why block, stencil or scalar, for -mat_view ::ascii_info
  const FormatOps             *built_ops = nullptr; // what built the layout (layout/layout.hpp: the model's choice, the block or stencil layout's format)
  const FormatOps             *derived_ops = nullptr; // the format a factor's triangles take (layout::Layout::derived_ops)
  std::vector<std::string>     layout_info, layout_view; // the layout decision's words (layout::Layout::info, view): -info, -mat_view
  bool                         caller_step = false; // layout made current inside a Mat call that raises the state once more on return (same values)
  DeviceBuffer<double>         staging;       // host CSR values uploaded for a refresh
  std::vector<int32_t>         diag_pos;      // CSR position of each diagonal entry (-1: none)
  DeviceBuffer<int32_t>        d_diag_pos;
  bool                         d_diag_ready = false; // cuda: d_diag_pos found on the device by the build (diag_pos may be empty)
  int64_t                      diag_missing = 0;     // ... and how many rows have no diagonal entry
  DeviceBuffer<int32_t>        d_rowptr, d_cols; // the CSR pattern on the device, for MatDiagonalScale's edit
  PetscInt                     pattern_build = -1; // build number d_rowptr / d_cols belong to
  std::vector<cudaStream_t>    extra_streams; // created once per block, used by multi-stream formats
  std::vector<cudaEvent_t>     events;        // [0] fork, [1..] joins
  PetscInt                     builds = 0, refreshes = 0, products = 0, edits = 0; // edits: in-place value changes (gf_edit.cpp)
  // The layout holds newer values than the host AIJ array (an in-place edit ran on the layout alone,
  // gf_values.cpp); the first host read brings them back (to_host counts those copies).
  bool                         host_stale = false;
  PetscInt                     to_host    = 0;
  Mat                          owner      = nullptr; // mpi: the matrix whose offload mask says whether its blocks' host values are stale
  PetscInt64                   serial = -1; // of the current layout: unique over all blocks' builds
  PetscInt64                   axpy_peer = -1; // serial of the last MatAXPY X layout compared with this one ...
  bool                         axpy_same_layout = false; // ... and whether its slot map is this one's
  GFStageTime                  last_build, last_refresh;
  // A^T for transposed products (cuda backend), made by the first one: of build number
  // transposed_build, with the values of state transposed_state.
  std::unique_ptr<TransposedBlock> transposed;
  PetscInt                         transposed_build = -1, transposed_products = 0;
  PetscInt                         symmetric_transposes = 0; // transposed products run as the product (values_symmetric)
  PetscObjectState                 transposed_state = -1;

  GFBlock() = default;
  GFBlock(const GFBlock &) = delete;
  ~GFBlock();
  void reset(); // drop the format and its times (next sync rebuilds); AIJ is untouched
};

// The Mat operations a gpuformats type overrides (and whose AIJ versions it keeps).
struct GFOps {
  PetscErrorCode (*assemblyend)(Mat, MatAssemblyType);
  PetscErrorCode (*mult)(Mat, Vec, Vec);
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*getdiagonal)(Mat, Vec);
  PetscErrorCode (*destroy)(Mat);
  PetscErrorCode (*setfromoptions)(Mat, PetscOptionItems);
  PetscErrorCode (*view)(Mat, PetscViewer);
  PetscErrorCode (*duplicate)(Mat, MatDuplicateOption, Mat *);
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*scale)(Mat, PetscScalar);
  PetscErrorCode (*shift)(Mat, PetscScalar);
  PetscErrorCode (*diagonalset)(Mat, Vec, InsertMode);
  PetscErrorCode (*diagonalscale)(Mat, Vec, Vec);
  PetscErrorCode (*axpy)(Mat, PetscScalar, Mat, MatStructure);
  PetscErrorCode (*zeroentries)(Mat);
  PetscErrorCode (*createsubmatrix)(Mat, IS, IS, MatReuse, Mat *);
  PetscErrorCode (*createsubmatrices)(Mat, PetscInt, const IS[], const IS[], MatReuse, Mat *[]);
  PetscErrorCode (*zerorows)(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);
  PetscErrorCode (*zerorowscolumns)(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);
  PetscErrorCode (*productsetfromoptions)(Mat); // seq types only (gf_product.cpp)
};

// A seqaijcusparse matrix on a SeqAIJ block's host CSR arrays (no host copy), for cuSPARSE's
// factorizations: its device CSR is uploaded once per nonzero pattern and its device values are
// gathered from the block's format (gf_factor.cpp).
// COO assembly (gf_coo.cpp): AIJ's MatSetPreallocationCOO / MatSetValuesCOO, and PETSc's COO map
// on the device (once per preallocation) with the values' staging buffer.
struct GFCoo {
  PetscErrorCode (*aij_preallocation)(Mat, PetscCount, PetscInt[], PetscInt[]) = nullptr;
  PetscErrorCode (*aij_values)(Mat, const PetscScalar[], InsertMode)           = nullptr;
  const void            *map    = nullptr; // the host map (PETSc's COO struct) d_jmap / d_perm hold
  PetscInt64             serial = -1;      // the layout (GFBlock::serial) slot_of_coo was composed for
  bool                   unique = false;   // no duplicates: slot_of_coo, else d_jmap / d_perm
  DeviceBuffer<int64_t>  d_jmap, d_perm;
  DeviceBuffer<int32_t>  d_slot;            // cuda: slot_of_coo
  std::vector<int32_t>   h_slot;            // host backend: slot_of_coo
  DeviceBuffer<double>   d_v;    // host values uploaded for a cuda layout
  std::vector<double>    h_v;    // device values downloaded for a host path
  // mpi: MPIAIJ's map (its MatCOOStruct_MPIAIJ arrays, gf_coo.cpp's MpiMap order) on the device,
  // once per preallocation and pair of layouts, and the exchange's buffers
  DeviceBuffer<int64_t>  d_mpi[11];
  DeviceBuffer<double>   d_send, d_recv;
  PetscInt64             serial_offd = -1;
};

struct GFShadow {
  Mat              S         = nullptr;
  PetscObjectState nzstate   = -1;
  const void      *arrays[3] = {};    // the host i, j, a arrays S was made on
  PetscObjectState state     = -1;    // the block's state when S's device values were gathered
  bool             on_device = false; // S's device CSR exists
};

// A matrix's options, one value: read by GFMatSetFromOptions (gf_options.cpp), set by the
// MatGPUFormats* functions, inherited by the matrices made from it (GFInherit), shown by the views.
struct GFOptions {
  std::vector<int64_t> params; // -mat_<fmt>_<param>, in FormatOps::params order
  std::vector<int64_t> stencil_params; // the stencil layout's (layout::stencil_ops()): -mat_<its root>_<param>
  MatGPUFormatsBackend backend_option = MAT_GPUFORMATS_BACKEND_AUTO; // -mat_gpuformats_backend
  PetscInt             upload_threads = default_upload_threads();    // -mat_gpuformats_upload_threads
  // mpi: -mat_gpuformats_halo, -mat_gpuformats_halo_measure (CUDA events per product); set through
  // GFSetHalo, which makes the next product choose the exchange again
  MatGPUFormatsHalo halo_option  = MAT_GPUFORMATS_HALO_AUTO;
  PetscBool         halo_measure = PETSC_FALSE;
  PetscInt          halo_node_ranks = 0;          // -mat_gpuformats_halo_node_ranks: ipc's nodes (0: shared memory)
  PetscBool         halo_overlap    = PETSC_TRUE; // -mat_gpuformats_halo_overlap: the exchange beside the local product (else before it)
  bool              product_format = false; // -mat_gpuformats_product_result: device MatProducts give a matrix of this format (else aijcusparse)
  // -mat_gpuformats_trisolve, -mat_gpuformats_trisolve_sweeps, -mat_gpuformats_trisolve_auto_margin:
  // how the triangular solves of ILU(k) / ICC(k) in the natural ordering run (gf_factor.cpp, src/trisolve): 0
  // cusparse (cuSPARSE's exact solves, as aijcusparse), 1 sweeps, 2 isai, 3 auto (sweeps where their
  // predicted solve time is at most the margin times cuSPARSE's), 4 levelset (kTrisolveLevelset, the
  // default: our level-scheduled exact solves)
  PetscInt  trisolve = 4, trisolve_sweeps = 3;
  PetscBool trisolve_set = PETSC_FALSE; // given (else ILU(k > 0) takes ours only where lines take both triangles: gf_factor.cpp)
  PetscReal trisolve_auto_margin = -1; // < 0: trisolve::auto_margin(k) of the factor's levels
  // -mat_gpuformats_block auto|scalar|block (select::BlockMode): each block's bs x bs blocks
  // (the row block size, MatSetBlockSize) in BELL, one column index per block, where block-dense
  PetscInt block_mode = 0;
  // -mat_gpuformats_stencil auto|off|on (select::StencilMode): a block whose rows share a few column
  // offsets (a DMDA's stencil) in DIA, one value array per offset and no column index
  PetscInt stencil_mode = 0;
  // -mat_gpuformats_compressed_rows: a block with at most half its rows nonempty (an mpi matrix's
  // off-process block) in its layout over those rows (layout/compressed_rows.hpp)
  PetscBool compressed_rows = PETSC_TRUE;
  // the type's string options beyond its format parameters (-mat_<root>_<name>: the model-driven type's model and
  // candidates), held and checked by the layout decision
  layout::Settings settings;
};

struct GFMat {
  const FormatOps     *ops = nullptr;
  GFOptions            opt;
  bool                 mpi            = false; // mpi<fmt>: diag + offd + halo; seq<fmt>: diag only
  bool                 adopted        = false; // seq<fmt> that is an mpi<fmt>'s local block: the parent edits the shared diag block
  std::shared_ptr<GFBlock> diag = std::make_shared<GFBlock>(); // shared with an mpi<fmt>'s adopted A_d
  std::shared_ptr<GFBlock> offd = std::make_shared<GFBlock>(); // mpi: shared with A_o's accessor guard
  PetscObjectId        offd_guarded = 0; // mpi: the A_o object whose accessors are guarded
  bool                 pending = false; // mpi: final assembly since the last sync; the next product syncs collectively
  PetscInt             syncs = 0; // rounds of block syncs (mpi: both blocks in one), for GFStageTime::round
  PetscInt             collective_syncs = 0, transposed_checked = -1; // mpi: GFMPISync calls; the one the last transposed product checked at
  // MPI halo: ghost values of x gathered into lvec by our own scatter (MPIAIJ's is private).
  Vec              lvec  = nullptr;
  VecScatter       halo  = nullptr;
  PetscObjectState halo_nzstate = -1;
  // The forward product's exchange (-mat_gpuformats_halo): dhalo for nccl / mpi, null where the
  // VecScatter above runs it; chosen collectively with the scatter (gf_mpi.cpp), halo_why says why.
  std::unique_ptr<Halo> dhalo;
  MatGPUFormatsHalo     halo_used = MAT_GPUFORMATS_HALO_VECSCATTER;
  bool                  halo_prepared = false; // GFMPIPrepareHalo ran (first final assembly)
  std::string           halo_why;
  // seq: made by the first cuSPARSE factorization (an mpi<fmt>'s A_d has its own, as a seq<fmt>).
  GFShadow shadow;
  GFCoo    coo;
  // MatAXPY with UNKNOWN_NONZERO_PATTERN: the blocks (ids, nonzero states) of the last X found to
  // have this matrix's pattern, with this matrix's own: a TS step compares once, not at every step.
  std::vector<PetscInt64> same_pattern_key;
  GFOps aij{}; // the AIJ implementations we wrap or fall back to
  // the AIJ operations that read or write the host values, wrapped to bring those values back
  // first (gf_values.cpp, GFWrapHostPaths), and (seq) SeqAIJ's value accessors before ours
  struct _MatOps host_ops{};
  void          *seqaij_ops = nullptr; // Mat_SeqAIJOps, as SeqAIJ left it
  std::string stats_json; // MatGPUFormatsGetStatistics()'s last answer, which the matrix owns (gf_stats.cpp)
};

inline GFMat &gf(Mat A) { return *static_cast<GFMat *>(A->spptr); }

// --- gf_block.cpp: per-block work shared by the seq and mpi types ---
bool           cuda_device_present();
Backend        resolve_backend(const GFMat &gm);
// A failure of the layers below (run_layer, at the end of this header), held instead of raised so
// that an MPI type can make it collective (a refusal or an out-of-memory on one rank must fail
// every rank, not leave the others waiting).
struct GFLayerError {
  PetscErrorCode cls = PETSC_SUCCESS;
  std::string    msg;
};
// Brings one block's format up to date with its AIJ block (rebuild or values-only refresh).
// defer: where a failure of the format layer goes (the block is then left empty); null: raised here.
PetscErrorCode GFBlockSync(GFMat &gm, GFBlock &blk, Mat aij, Backend backend, PetscBool want_diag, GFLayerError *defer = nullptr);
PetscErrorCode GFBlockSpMV(const GFMat &gm, GFBlock &blk, PetscScalar alpha, const PetscScalar *x, PetscScalar beta, PetscScalar *y);
// The block's A^T made (or its values refreshed) for the synced block of `aij`, cuda backend.
// defer: as GFBlockSync's.
PetscErrorCode GFBlockTransposeReady(const GFMat &gm, GFBlock &blk, Mat aij, GFLayerError *defer = nullptr);
// y = A^T x (add: y += A^T x) with device vectors, after GFBlockTransposeReady.
PetscErrorCode GFBlockTransposedProduct(GFBlock &blk, Vec x, PetscBool add, Vec y);
PetscErrorCode GFBlockGetDiagonal(GFBlock &blk, PetscScalar *d, PetscInt n);
// Whether the block's layout holds the AIJ block's current values (no sync needed), for the backend.
PetscErrorCode GFBlockCurrent(GFBlock &blk, Mat aij, Backend backend, PetscBool *current);
// The synced block's diagonal positions: diag_pos on the host backend; d_diag_pos on the cuda
// backend (found by the build where its format builds from an upload, else diag_pos uploaded).
PetscErrorCode GFBlockDiagPositions(GFBlock &blk, Mat aij);
PetscErrorCode GFBlockDiagonalFull(GFBlock &blk, Mat aij, PetscBool *full); // every row has its diagonal entry
// The synced block's CSR row pointers and columns in its backend's memory (device: uploaded once per build).
PetscErrorCode GFBlockPattern(GFBlock &blk, Mat aij, const int32_t **rowptr, const int32_t **cols, int threads); // threads: the upload's staging
// -mat_view ::ascii_info lines of one block; all_ranks: every rank prints (synchronized viewer).
PetscErrorCode GFBlockView(const GFMat &gm, const GFBlock &blk, const char *label, PetscViewer viewer, PetscBool all_ranks);
// The device memory of a block's cuSPARSE view (GFShadow) for factorizations, where one exists.
PetscErrorCode GFShadowView(const GFShadow &sh, const GFBlock &blk, const char *label, PetscViewer viewer, PetscBool all_ranks);
// Upload and device seconds of the matrix's last build and last values-only refresh: each the sum
// over the blocks that ran it in the latest round that ran it in any; -1 where none was measured,
// and for a refresh older than the last build.
PetscErrorCode GFLastTimes(const GFMat &gm, PetscReal *build_upload, PetscReal *build_device, PetscReal *refresh_upload, PetscReal *refresh_device);
// Seconds of one stage (waits for it on the device); measured false where there is nothing to read.
PetscErrorCode GFStageSeconds(const GFStageTime &st, double *upload_s, double *device_s, PetscBool *measured);
// What -mat_view and -info call a block's layout: its format's name, or the block layout's.
std::string    GFLayoutName(const GFMat &gm, const GFBlock &blk);

// --- gf_options.cpp: the matrix's options (MatSetFromOptions) ---
PetscErrorCode GFMatSetFromOptions(Mat A, GFMat &gm, PetscOptionItems PetscOptionsObject);

// --- gf_type.cpp: vector access ---
PetscErrorCode GFVecOnDevice(Vec v, PetscBool *on);
PetscErrorCode GFUseFormat(Mat A, GFMat &gm, Vec x, Vec y, Backend *backend, PetscBool *use);
PetscErrorCode GFGetArrays(Backend backend, Vec x, const PetscScalar **xa, Vec y, PetscBool read_y, PetscScalar **ya);
PetscErrorCode GFRestoreArrays(Backend backend, Vec x, const PetscScalar **xa, Vec y, PetscBool read_y, PetscScalar **ya);

// --- gf_type.cpp: the Mat operations, conversion, and what both types share ---
using GFConvertFn = PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *);
PetscErrorCode GFConvert(Mat A, MatType type, MatReuse reuse, Mat *newmat, PetscBool mpi, GFConvertFn self);
// Makes B (seqaij / mpiaij, any state) a matrix of the format's seq / mpi type in place, syncing nothing.
PetscErrorCode GFInstall(Mat B, const FormatOps *ops, PetscBool mpi, GFConvertFn self);
PetscErrorCode GFSyncNow(Mat A); // rebuild or refresh now, as the next product would
PetscErrorCode GFGetStatistics_Private(Mat A, const char **json); // gf_stats.cpp

// --- gf_seq.cpp / gf_mpi.cpp: what differs ---
PetscErrorCode GFSeqSync(Mat A, Backend backend, PetscBool want_diag);
PetscErrorCode GFSeqProduct(Mat A, Backend backend, Vec x, PetscScalar beta, Vec y); // y = A x + beta y
PetscErrorCode GFMPISync(Mat A, Backend backend, PetscBool want_diag, PetscBool with_halo);
PetscErrorCode GFMPIProduct(Mat A, Backend backend, Vec x, PetscScalar beta, Vec y);
PetscErrorCode GFMPITransposedProduct(Mat A, Vec x, Vec y, Vec z); // z = A^T x (+ y): cuda backend, device vectors
PetscErrorCode GFMPIView(Mat A, PetscViewer viewer);
PetscErrorCode GFMPIDestroy(Mat A);
PetscErrorCode GFMPIAdoptLocalBlock(Mat A, Mat *Ad, Mat *Ao); // the blocks, A_d made our seq type sharing the diag block
PetscErrorCode GFMPIGhostValues(Mat A, Backend backend, Vec r, Vec *ghosts); // r's values at the off-process block's columns (GFMat::lvec)
// The halo options (-mat_gpuformats_halo, _measure): a changed choice is made again at the next
// product; measuring applies to the exchange in use at once.
void           GFSetHalo(GFMat &gm, MatGPUFormatsHalo halo, PetscBool measure);
PetscErrorCode GFMPIPrepareHalo(Mat A); // collective, at the first final assembly: NCCL's communicator made where products may use it
PetscErrorCode GFMPIHaloTimes(Mat A, MatGPUFormatsHalo *used, PetscInt *products, PetscReal *halo, PetscReal *local, PetscReal *exposed);

// --- gf_values.cpp: values that live in the layout ---
// The host values of A made current from its layout(s), where an in-place edit or a COO assembly
// left them stale: before any host read or partial write (mpi: both blocks).
PetscErrorCode GFHostValues(Mat A);
// Whether A's host values are stale (mpi: either block's). A: one of our types; false before its
// GFMat exists.
bool           GFHostStale(Mat A);
// One block's values gathered into its AIJ block `aij`'s array, if stale (the caller keeps the
// offload masks).
PetscErrorCode GFBlockToHost(GFBlock &blk, Mat aij);
// After an in-place edit or COO assembly of the layout(s) alone: the host values are stale
// (A->offloadmask GPU; mpi: both blocks).
void           GFMarkHostStale(Mat A);
// The AIJ operations that touch host values bring them back first (seq: and SeqAIJ's value
// accessors; mpi: and A_o's accessors, GFGuardOffProcessBlock); again after anything that may
// reinstall AIJ operations (assembly, options). Inodes off, as aijcusparse.
PetscErrorCode GFWrapHostPaths(Mat A);
// mpi: A_o's value accessors bring the offd block's values back first (once per A_o object).
PetscErrorCode GFGuardOffProcessBlock(Mat A, Mat Ao);
void           GFReleaseHostPaths(GFMat &gm); // at destroy
// The CSR arrays of a SeqAIJ-family matrix as they are (no values brought back): for the pattern,
// and for our own reads of values known current.
void           GFSeqAIJArrays(Mat aij, const PetscInt **i, const PetscInt **j, PetscScalar **a);
bool           GFSeqAIJKeepsPattern(Mat aij); // MAT_KEEP_NONZERO_PATTERN: MatZeroRows keeps the rows' entries

// --- gf_coo.cpp ---
PetscErrorCode GFInstallCOO(Mat B, PetscBool install); // MatSetPreallocationCOO_C, MatSetValuesCOO_C

// --- gf_edit.cpp: in-place value changes and derived matrices ---
PetscErrorCode MatAXPY_GF(Mat Y, PetscScalar a, Mat X, MatStructure str); // also an aijcusparse product result's (GFProductResultAXPY)
void           GFInstallEdits(Mat B); // MatScale, MatShift, MatDiagonalSet, MatDiagonalScale, MatAXPY, MatZeroEntries; seq: MatZeroRows, MatZeroRowsColumns
void           GFInstallDerived(Mat B); // MatCreateSubMatrix(ces): of our type, with B's options
PetscErrorCode GFInherit(Mat from, Mat to); // to (a gpuformats matrix) takes from's format options
PetscErrorCode MatConvert_SeqAIJ_SeqGF(Mat A, MatType type, MatReuse reuse, Mat *newmat);
PetscErrorCode MatConvert_MPIAIJ_MPIGF(Mat A, MatType type, MatReuse reuse, Mat *newmat);
PetscErrorCode MatCreate_SeqGF(Mat B, const FormatOps *ops);
PetscErrorCode MatCreate_MPIGF(Mat B, const FormatOps *ops);

// --- gf_register.cpp ---
const FormatOps *format_of_type(const char *type); // "evchyb", "seqevchyb", "mpievchyb" -> ops
const char      *seq_type_name(const FormatOps *ops);
const char      *mpi_type_name(const FormatOps *ops);
const char      *seq_alias_name(const FormatOps *ops); // the short names of earlier releases: seqevchyb
const char      *mpi_alias_name(const FormatOps *ops);
PetscErrorCode   GFComposeCommon(Mat B, PetscBool compose); // the MatGPUFormats*_C functions (gf_api.cpp)

// Runs make (PETSc calls that make or assemble an internal matrix: the factorizations' view,
// PBJacobi's block diagonal) with the options' viewers off: the user's -mat_view is not for it.
template <class Make>
PetscErrorCode GFInternalMatrix(Make &&make)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsPushCreateViewerOff(PETSC_TRUE));
  const PetscErrorCode ierr = make();
  PetscCall(PetscOptionsPopCreateViewerOff());
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// --- gf_block.cpp ---
// One line of a block's view: on every rank when `all` (inside PetscViewerASCIIPushSynchronized,
// flushed by the caller), else on the viewer's first rank only.
PetscErrorCode GFViewLine(PetscViewer viewer, PetscBool all, const char *fmt, ...) PETSC_ATTRIBUTE_FORMAT(3, 4);

// --- gf_factor.cpp ---
PetscErrorCode GFRegisterFactors(const char *seq_type); // MATSOLVERCUSPARSE LU/Cholesky/ILU/ICC of a seq type
PetscErrorCode GFGetOrdering(Mat A, MatOrderingType type, IS *rperm, IS *cperm); // the seq types' MatGetOrdering()

// --- gf_probe.cpp ---
namespace trisolve {
struct AutoProbe;
}
// -mat_gpuformats_trisolve auto's measurement of the factor B of A: trisolve::kAutoIterations of
// right-preconditioned GMRES from trisolve::probe_vector with each solve (exact, then approx) as
// the preconditioner; p gets each one's residual reduction and time per iteration.
PetscErrorCode GFTrisolveAutoMeasure(Mat B, Mat A, PetscErrorCode (*exact)(Mat, Vec, Vec), PetscErrorCode (*approx)(Mat, Vec, Vec), trisolve::AutoProbe &p);

// --- gf_shadow.cpp: the cuSPARSE view of a seq type's block (GFMat::shadow) ---
// cuda backend: S with device values equal to A's current values (gathered from the up-to-date
// format when A changed since the last gather).
PetscErrorCode GFShadowOnDevice(Mat A, Mat *S);
// S with its host values current (they are A's arrays), for the phases that factor on the host.
PetscErrorCode GFShadowOnHost(Mat A, Mat *S);

// --- gf_product.cpp: MatProducts (MatMatMult, MatPtAP, ...) of the seq types on the device ---
extern const char *const GFProductResults[]; // -mat_gpuformats_product_result: "aijcusparse", "format"
extern const char *const GFTrisolveModes[];  // -mat_gpuformats_trisolve: "cusparse", "sweeps", "isai", "auto", "levelset" (gf_factor.cpp)
constexpr PetscInt       kTrisolveLevelset = 4; // its "levelset": trisolve::Mode::levelset
// Installs (or, at destroy, removes) the seq type's MatProductSetFromOptions: cuSPARSE's products
// on device operands on the cuda backend, AIJ's elsewhere.
PetscErrorCode GFInstallProducts(Mat B, PetscBool install);
// MatAXPY of an aijcusparse product result (which shares MatAXPY_GF with our types, so that PETSc's
// MatAXPY finds a common method for the result and our X): aijcusparse's, on the device.
PetscErrorCode GFProductResultAXPY(Mat Y, PetscScalar a, Mat X, MatStructure str);

} // namespace gpuformats

namespace gpuformats {
inline PetscErrorCode petsc_error_class(ErrorKind k)
{
  switch (k) {
  case ErrorKind::out_of_memory:
    return PETSC_ERR_MEM;
  case ErrorKind::unsupported:
    return PETSC_ERR_SUP;
  case ErrorKind::bad_input:
    return PETSC_ERR_ARG_OUTOFRANGE;
  case ErrorKind::internal:
    return PETSC_ERR_PLIB;
  default:
    return PETSC_ERR_GPU;
  }
}
inline const char *petsc_error_hint(ErrorKind k)
{
  return k == ErrorKind::out_of_memory ? ". The AIJ matrix is unchanged and usable: free device memory, put fewer ranks on this GPU, or use -mat_type aij / -mat_gpuformats_backend host" : "";
}
} // namespace gpuformats

namespace gpuformats {
// Runs a call into the layers below (which throw gpuformats::Error) and maps an exception to a
// PETSc error class and message: false, with err filled, on failure.
template <class F>
bool run_layer(F &&f, GFLayerError &err)
{
  try {
    f();
    return true;
  } catch (const Error &e) {
    err.cls = petsc_error_class(e.kind);
    err.msg = std::string(e.what()) + petsc_error_hint(e.kind);
  } catch (const std::bad_alloc &) {
    err.cls = PETSC_ERR_MEM;
    err.msg = std::string("out of memory (host, or device inside Thrust)") + petsc_error_hint(ErrorKind::out_of_memory);
  } catch (const std::exception &e) {
    err.cls = PETSC_ERR_LIB;
    err.msg = e.what();
  }
  return false;
}
} // namespace gpuformats

// Runs a statement of the layers below and raises a failure as a PETSc error (run_layer's mapping).
// Leaves the AIJ matrix untouched: formats build aside and are installed only when complete.
#define GF_TRY(comm, stmt) \
  do { \
    ::gpuformats::GFLayerError gf_err; \
    if (!::gpuformats::run_layer([&] { stmt; }, gf_err)) SETERRQ((comm), gf_err.cls, "gpuformats: %s", gf_err.msg.c_str()); \
  } while (0)
