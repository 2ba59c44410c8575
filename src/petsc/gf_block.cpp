// Per-block work shared by seq<fmt> and mpi<fmt>: build / refresh / product / diagonal / view.
#include "gf_mat.hpp"

#include "core/row_stats.hpp"
#include "core/text.hpp"
#include "formats/slot_map.hpp"
#include "layout/layout.hpp"

#include <petscdevice_cuda.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace gpuformats {

bool cuda_device_present()
{
  static int count = -1;
  if (count < 0) {
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0; // no driver, a stub driver, no device
    cudaGetLastError();
  }
  return count > 0;
}

Backend resolve_backend(const GFMat &gm)
{
  switch (gm.opt.backend_option) {
  case MAT_GPUFORMATS_BACKEND_HOST:
    return Backend::host;
  case MAT_GPUFORMATS_BACKEND_CUDA:
    return Backend::cuda;
  default:
    return cuda_device_present() ? Backend::cuda : Backend::host;
  }
}

GFBlock::~GFBlock()
{
  reset();
  for (cudaStream_t s : extra_streams) cudaStreamDestroy(s);
  for (cudaEvent_t e : events) cudaEventDestroy(e);
}

void GFBlock::reset()
{
  transposed.reset();
  fmt.reset();
  staging.release();
  d_diag_pos.release();
  d_diag_ready = false;
  d_rowptr.release();
  d_cols.release();
  pattern_build = -1;
  axpy_peer     = -1;
  block_bs      = 0;
  layout_name.clear();
  layout_reason.clear();
  built_ops   = nullptr;
  derived_ops = nullptr;
  layout_info.clear();
  layout_view.clear();
  last_build.timer.forget();
  last_refresh.timer.forget();
  state = nzstate = -1;
}

static PetscErrorCode current_stream(cudaStream_t *s)
{
  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Streams (and fork/join events) a multi-stream format uses: created with the first build that
// needs them and kept for the matrix's life, never per product.
static void ensure_streams(GFBlock &blk, int extra)
{
  while ((int)blk.extra_streams.size() < extra) {
    cudaStream_t s;
    GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    blk.extra_streams.push_back(s);
  }
  while ((int)blk.events.size() < extra + 1) {
    cudaEvent_t e;
    GPUFORMATS_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    blk.events.push_back(e);
  }
}

PetscErrorCode GFStageSeconds(const GFStageTime &st, double *upload_s, double *device_s, PetscBool *measured)
{
  PetscFunctionBegin;
  *measured = st.timer.measured() ? PETSC_TRUE : PETSC_FALSE;
  if (*measured) GF_TRY(PETSC_COMM_SELF, st.timer.read(upload_s, device_s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StageText(const GFStageTime &st, char *buf, size_t len)
{
  double    up, dev;
  PetscBool measured;

  PetscFunctionBegin;
  PetscCall(GFStageSeconds(st, &up, &dev, &measured));
  if (measured) PetscCall(PetscSNPrintf(buf, len, "%.3f ms upload + %.3f ms device", 1e3 * up, 1e3 * dev));
  else PetscCall(PetscStrncpy(buf, "not measured", len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFViewLine(PetscViewer viewer, PetscBool all, const char *fmt, ...)
{
  va_list ap;

  PetscFunctionBegin;
  va_start(ap, fmt);
  const std::string line = vformat(fmt, ap);
  va_end(ap);
  if (all) PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "%s", line.c_str()));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "%s", line.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What -mat_view and -info call a block's layout: the name the layout decision gave it (the block
// or stencil layout's), or its format's.
std::string GFLayoutName(const GFMat &gm, const GFBlock &blk) { return blk.layout_name.empty() ? gm.ops->root : blk.layout_name; }

// -info: where a build's or refresh's time goes (reading its device times waits for it).
static PetscErrorCode InfoStage(Mat aij, const GFMat &gm, const GFBlock &blk, const char *what, const CsrView &csr, PetscLogDouble host_s, const GFStageTime &st, double upload_bytes)
{
  PetscBool info = PETSC_FALSE, measured;
  double    up, dev;

  PetscFunctionBegin;
  PetscCall(PetscInfoEnabled(MAT_CLASSID, &info));
  if (!info) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GFStageSeconds(st, &up, &dev, &measured));
  if (measured)
    PetscCall(PetscInfo(aij, "gpuformats: %s %s of %d x %d, %" PetscInt64_FMT " nonzeros: %.3f ms from call to return; %.3f ms upload (%.1f GB/s, %" PetscInt_FMT " host threads) + %.3f ms device\n", GFLayoutName(gm, blk).c_str(), what, csr.nrows, csr.ncols, (PetscInt64)csr.nnz, 1e3 * host_s, 1e3 * up, up > 0 ? upload_bytes / up / 1e9 : 0.0, gm.opt.upload_threads, 1e3 * dev));
  else PetscCall(PetscInfo(aij, "gpuformats: %s %s of %d x %d, %" PetscInt64_FMT " nonzeros: %.3f ms from call to return (no device times)\n", GFLayoutName(gm, blk).c_str(), what, csr.nrows, csr.ncols, (PetscInt64)csr.nnz, 1e3 * host_s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The host CSR of a SeqAIJ block.
static PetscErrorCode BlockCsr(Mat aij, CsrView *csr)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;

  PetscFunctionBegin;
  GFSeqAIJArrays(aij, &ai, &aj, &aa); // values as they are: GFBlockSync brings stale ones back before it reads them
  csr->nrows  = (int32_t)aij->rmap->n;
  csr->ncols  = (int32_t)aij->cmap->n;
  csr->nnz    = csr->nrows ? ai[csr->nrows] : 0;
  PetscCheck(aa || csr->nnz == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "gpuformats: the matrix has a nonzero pattern but no values (the result of a symbolic phase, e.g. MatTransposeSymbolic()): set its values before a product");
  csr->rowptr = ai;
  csr->colidx = aj;
  csr->values = aa;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The CSR position of each diagonal entry, once per build (and on the device for the cuda backend).
static bool DiagReady(const GFBlock &blk, int32_t nrows) { return (blk.backend == Backend::cuda && blk.d_diag_ready) || blk.diag_pos.size() == (size_t)nrows; }

static PetscErrorCode DiagPositions(GFBlock &blk, const CsrView &csr)
{
  PetscFunctionBegin;
  if (DiagReady(blk, csr.nrows)) PetscFunctionReturn(PETSC_SUCCESS);
  blk.diag_pos = diagonal_positions(csr);
  if (blk.backend == Backend::cuda) {
    cudaStream_t s;
    PetscCall(current_stream(&s));
    GF_TRY(PETSC_COMM_SELF, blk.d_diag_pos.resize(blk.diag_pos.size()); blk.d_diag_pos.upload(blk.diag_pos.data(), blk.diag_pos.size(), s); GPUFORMATS_CUDA(cudaStreamSynchronize(s)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A failure of the layers below: held in *defer where given, else raised.
static PetscErrorCode Fail(const GFLayerError &err, GFLayerError *defer)
{
  PetscFunctionBegin;
  if (defer) *defer = err;
  else SETERRQ(PETSC_COMM_SELF, err.cls, "gpuformats: %s", err.msg.c_str());
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Where the block stands against `aij`: its state and nonzero state now, and whether the layout must
// be rebuilt (no layout, another backend, pattern or AIJ block); else blk.state == *state says the
// values are current.
static PetscErrorCode BlockStatus(GFBlock &blk, Mat aij, Backend backend, PetscObjectState *state, PetscObjectState *nzstate, bool *rebuild)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)aij, state));
  PetscCall(MatGetNonzeroState(aij, nzstate));
  *rebuild = !blk.fmt || blk.backend != backend || *nzstate != blk.nzstate || ((PetscObject)aij)->id != blk.src;
  // The caller raises the state once more after we made the layout match (MatConvert after our
  // converter; the public MatScale, MatShift, ... after an in-place edit): that step changed no value.
  if (blk.caller_step && !*rebuild && *state == blk.state + 1) blk.state = *state;
  blk.caller_step = false;
  // Every host write brings stale host values back first, or overwrites them all (gf_values.cpp), so
  // while they are stale no host value changed: a new state (an assembly, a copy of nothing) leaves
  // the layout's values the matrix's.
  if (blk.host_stale && !*rebuild) blk.state = *state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockSync(GFMat &gm, GFBlock &blk, Mat aij, Backend backend, PetscBool want_diag, GFLayerError *defer)
{
  PetscObjectState state, nzstate;
  bool             rebuild;
  MPI_Comm         comm = PETSC_COMM_SELF;
  GFLayerError     err;

  PetscFunctionBegin;
  PetscCall(BlockStatus(blk, aij, backend, &state, &nzstate, &rebuild));
  if (!rebuild && state == blk.state && (!want_diag || DiagReady(blk, (int32_t)aij->rmap->n))) PetscFunctionReturn(PETSC_SUCCESS);
  if (blk.host_stale && rebuild) PetscCall(GFBlockToHost(blk, aij)); // the layout is about to go

  CsrView csr;
  PetscCall(BlockCsr(aij, &csr));

  bool ok = true;
  if (rebuild) {
    PetscCall(PetscLogEventBegin(MAT_GPUFormatsBuild, aij, 0, 0, 0));
    blk.reset(); // free the old layout first: the new one may need the memory
    blk.last_build.round = gm.syncs;
    layout::Layout               built;
    cudaStream_t                 s = nullptr;
    PetscLogDouble               t0, t1;
    bool                         diag_found = false;
    if (backend == Backend::cuda) PetscCall(current_stream(&s));
    // The diagonal's CSR positions from the build's own upload (one pass on the device), for
    // MatGetDiagonal, MatShift and MatDiagonalSet: no host search, no second upload.
    auto diag_on_device = [&](const DeviceCsr &d) {
      blk.d_diag_pos.resize((size_t)csr.nrows);
      blk.diag_missing = diagonal_positions_cuda(d.rowptr.data(), d.colidx.data(), csr.nrows, blk.d_diag_pos.data(), s);
      diag_found       = true;
    };
    PetscCall(PetscTime(&t0));
    ok = run_layer(
      [&] {
        // the row block size serves both blocks of an MPI matrix (PETSc gives the off-process one column block size 1);
        // compressed rows for the off-process block only, whose product adds into y: a local block's writes all of y,
        // and there the compressed product's extra pass lost 3-15% (compressed_rows.hpp)
        const bool            offd = &blk == gm.offd.get();
        const layout::Request rq{gm.ops, gm.opt.params.data(), &gm.opt.settings, (int32_t)aij->rmap->bs, (select::BlockMode)gm.opt.block_mode, (select::StencilMode)gm.opt.stencil_mode, gm.opt.stencil_params.data(), offd && gm.opt.compressed_rows == PETSC_TRUE};
        if (backend == Backend::cuda) {
          ensure_streams(blk, gm.ops->extra_streams);
          blk.last_build.timer.create();
          built = layout::build_cuda(csr, rq, s, UploadContext{(int)gm.opt.upload_threads, &blk.last_build.timer}, diag_on_device);
          blk.last_build.timer.finish(s);
        } else built = layout::build_host(csr, rq);
      },
      err);
    PetscCall(PetscTime(&t1));
    PetscCall(PetscLogEventEnd(MAT_GPUFormatsBuild, aij, 0, 0, 0));
    if (ok) {
      PetscCheck(built.fmt && built.ops, comm, PETSC_ERR_LIB, "gpuformats: format %s returned no layout", gm.ops->root);
      blk.block_bs      = built.block_bs;
      blk.layout_name   = built.name;
      blk.layout_reason = built.reason;
      blk.built_ops     = built.ops;
      blk.derived_ops   = built.derived_ops;
      blk.layout_info   = std::move(built.info);
      blk.layout_view   = std::move(built.view);
      for (const std::string &line : blk.layout_info) PetscCall(PetscInfo(aij, "gpuformats: %s\n", line.c_str()));
      PetscCall(InfoStage(aij, gm, blk, "build", csr, t1 - t0, blk.last_build, csr_bytes(csr.nnz, csr.nrows)));
      blk.fmt     = std::move(built.fmt);
      blk.backend = backend;
      blk.nzstate = nzstate;
      blk.src     = ((PetscObject)aij)->id;
      blk.diag_pos.clear();
      blk.d_diag_ready = diag_found;
      blk.builds++;
      static PetscInt64 serials = 0;
      blk.serial = ++serials;
    }
  } else if (state != blk.state) {
    PetscCall(PetscLogEventBegin(MAT_GPUFormatsRefresh, aij, 0, 0, 0));
    blk.last_refresh.timer.forget();
    blk.last_refresh.round = gm.syncs;
    cudaStream_t   s = nullptr;
    PetscLogDouble t0, t1;
    if (backend == Backend::cuda) PetscCall(current_stream(&s));
    PetscCall(PetscTime(&t0));
    ok = run_layer(
      [&] {
        if (backend == Backend::cuda) {
          blk.last_refresh.timer.create();
          refresh_values_cuda(*blk.fmt, csr.values, blk.staging, s, UploadContext{(int)gm.opt.upload_threads, &blk.last_refresh.timer});
          blk.last_refresh.timer.finish(s);
        } else refresh_values_host(*blk.fmt, csr.values);
      },
      err);
    PetscCall(PetscTime(&t1));
    PetscCall(PetscLogEventEnd(MAT_GPUFormatsRefresh, aij, 0, 0, 0));
    if (ok) PetscCall(InfoStage(aij, gm, blk, "values-only refresh", csr, t1 - t0, blk.last_refresh, 8.0 * (double)csr.nnz));
    if (ok) blk.refreshes++;
    else blk.reset(); // values half-written: rebuilt at the next use
  }
  if (!ok) {
    PetscCall(Fail(err, defer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  blk.state = state;
  if (want_diag) PetscCall(DiagPositions(blk, csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockCurrent(GFBlock &blk, Mat aij, Backend backend, PetscBool *current)
{
  PetscObjectState state, nzstate;
  bool             rebuild;

  PetscFunctionBegin;
  PetscCall(BlockStatus(blk, aij, backend, &state, &nzstate, &rebuild));
  *current = !rebuild && state == blk.state ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockDiagPositions(GFBlock &blk, Mat aij)
{
  CsrView csr;

  PetscFunctionBegin;
  PetscCall(BlockCsr(aij, &csr));
  PetscCall(DiagPositions(blk, csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockDiagonalFull(GFBlock &blk, Mat aij, PetscBool *full)
{
  PetscFunctionBegin;
  PetscCall(GFBlockDiagPositions(blk, aij));
  if (blk.backend == Backend::cuda && blk.d_diag_ready) *full = blk.diag_missing == 0 ? PETSC_TRUE : PETSC_FALSE;
  else *full = std::find(blk.diag_pos.begin(), blk.diag_pos.end(), -1) == blk.diag_pos.end() ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockPattern(GFBlock &blk, Mat aij, const int32_t **rowptr, const int32_t **cols, int threads)
{
  CsrView csr;

  PetscFunctionBegin;
  PetscCall(BlockCsr(aij, &csr));
  if (blk.backend == Backend::host) {
    *rowptr = csr.rowptr;
    *cols   = csr.colidx;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (blk.pattern_build != blk.builds) {
    cudaStream_t s;
    PetscCall(current_stream(&s));
    GF_TRY(PETSC_COMM_SELF, {
      blk.d_rowptr.resize((size_t)csr.nrows + 1);
      blk.d_cols.resize((size_t)csr.nnz);
      blk.d_rowptr.upload(csr.rowptr, (size_t)csr.nrows + 1, s, 0, threads); // staged as a build's
      blk.d_cols.upload(csr.colidx, (size_t)csr.nnz, s, 0, threads);
      GPUFORMATS_CUDA(cudaStreamSynchronize(s));
    });
    blk.pattern_build = blk.builds;
  }
  *rowptr = blk.d_rowptr.data();
  *cols   = blk.d_cols.data();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockSpMV(const GFMat &gm, GFBlock &blk, PetscScalar alpha, const PetscScalar *x, PetscScalar beta, PetscScalar *y)
{
  const double flops = 2.0 * (double)blk.fmt->nnz + (beta != 0.0 ? 2.0 * blk.fmt->nrows : 0.0);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MAT_GPUFormatsSpMV, 0, 0, 0, 0));
  if (blk.backend == Backend::host) {
    GF_TRY(PETSC_COMM_SELF, blk.fmt->spmv(alpha, x, beta, y, StreamSet{}));
    PetscCall(PetscLogFlops(flops));
  } else {
    cudaStream_t streams[16];
    const int    extra = blk.built_ops ? blk.built_ops->extra_streams : 0;
    PetscCheck(extra < 16, PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuformats: at most 15 extra streams per format");
    PetscCall(current_stream(&streams[0]));
    for (int i = 0; i < extra; ++i) streams[i + 1] = blk.extra_streams[i];
    PetscCall(PetscLogGpuTimeBegin());
    GF_TRY(PETSC_COMM_SELF, {
      if (extra) { // order the format's streams after PETSc's work on x and y ...
        GPUFORMATS_CUDA(cudaEventRecord(blk.events[0], streams[0]));
        for (int i = 1; i <= extra; ++i) GPUFORMATS_CUDA(cudaStreamWaitEvent(streams[i], blk.events[0]));
      }
      blk.fmt->spmv(alpha, x, beta, y, StreamSet{streams, extra + 1});
      for (int i = 1; i <= extra; ++i) { // ... and PETSc's stream after all of them
        GPUFORMATS_CUDA(cudaEventRecord(blk.events[i], streams[i]));
        GPUFORMATS_CUDA(cudaStreamWaitEvent(streams[0], blk.events[i]));
      }
    });
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(flops));
  }
  blk.products++;
  PetscCall(PetscLogEventEnd(MAT_GPUFormatsSpMV, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockTransposeReady(const GFMat &gm, GFBlock &blk, Mat aij, GFLayerError *defer)
{
  const bool   fresh = !blk.transposed || blk.transposed_build != blk.builds;
  cudaStream_t s;
  CsrView      csr;
  GFLayerError err;

  PetscFunctionBegin;
  PetscCheck(blk.fmt && blk.backend == Backend::cuda, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: transposed product of a block not synced on the cuda backend");
  if (!fresh && blk.transposed_state == blk.state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(current_stream(&s));
  if (fresh) PetscCall(BlockCsr(aij, &csr));
  PetscCall(PetscLogEventBegin(MAT_GPUFormatsTransposeFill, aij, 0, 0, 0));
  const bool ok = run_layer(
    [&] {
      if (fresh) {
        blk.transposed.reset(); // the old one's memory first
        blk.transposed = TransposedBlock::build(csr, *blk.fmt, s, (int)gm.opt.upload_threads);
      } else blk.transposed->refresh(*blk.fmt, s);
    },
    err);
  PetscCall(PetscLogEventEnd(MAT_GPUFormatsTransposeFill, aij, 0, 0, 0));
  if (!ok) {
    blk.transposed.reset();
    PetscCall(Fail(err, defer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  blk.transposed_build = blk.builds;
  blk.transposed_state = blk.state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockTransposedProduct(GFBlock &blk, Vec x, PetscBool add, Vec y)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  cudaStream_t       s;

  PetscFunctionBegin;
  PetscCheck(blk.transposed && blk.transposed_state == blk.state, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: transposed layout not ready");
  PetscCall(current_stream(&s));
  PetscCall(GFGetArrays(Backend::cuda, x, &xa, y, add, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  GF_TRY(PETSC_COMM_SELF, blk.transposed->spmv(1.0, xa, add ? 1.0 : 0.0, ya, s));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(GFRestoreArrays(Backend::cuda, x, &xa, y, add, &ya));
  PetscCall(PetscLogGpuFlops(2.0 * (double)blk.fmt->nnz + (add ? (double)blk.fmt->ncols : 0.0)));
  blk.transposed_products++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockGetDiagonal(GFBlock &blk, PetscScalar *d, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(DiagReady(blk, (int32_t)n), PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: diagonal map not built");
  if (blk.backend == Backend::host) {
    gather_diagonal_host(*blk.fmt, blk.diag_pos.data(), (int32_t)n, d);
  } else {
    cudaStream_t s;
    PetscCall(current_stream(&s));
    GF_TRY(PETSC_COMM_SELF, gather_diagonal_cuda(*blk.fmt, blk.d_diag_pos.data(), (int32_t)n, d, s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Sum over the blocks of the latest round that ran `stage` in any block; -1 where none was measured.
static PetscErrorCode LastStage(const GFMat &gm, GFStageTime GFBlock::*stage, PetscReal *upload_s, PetscReal *device_s)
{
  const PetscInt last = PetscMax((*gm.diag.*stage).round, (*gm.offd.*stage).round);

  PetscFunctionBegin;
  *upload_s = *device_s = -1;
  for (const GFBlock *b : {(const GFBlock *)gm.diag.get(), (const GFBlock *)gm.offd.get()}) {
    double    up, dev;
    PetscBool measured;
    if ((b->*stage).round != last) continue;
    PetscCall(GFStageSeconds(b->*stage, &up, &dev, &measured));
    if (!measured) continue;
    *upload_s = PetscMax(*upload_s, 0) + up;
    *device_s = PetscMax(*device_s, 0) + dev;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFLastTimes(const GFMat &gm, PetscReal *build_upload, PetscReal *build_device, PetscReal *refresh_upload, PetscReal *refresh_device)
{
  const PetscInt last_build   = PetscMax(gm.diag->last_build.round, gm.offd->last_build.round);
  const PetscInt last_refresh = PetscMax(gm.diag->last_refresh.round, gm.offd->last_refresh.round);

  PetscFunctionBegin;
  PetscCall(LastStage(gm, &GFBlock::last_build, build_upload, build_device));
  if (last_refresh < last_build) *refresh_upload = *refresh_device = -1; // a refresh of an older layout
  else PetscCall(LastStage(gm, &GFBlock::last_refresh, refresh_upload, refresh_device));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockView(const GFMat &gm, const GFBlock &blk, const char *label, PetscViewer viewer, PetscBool all_ranks)
{
  PetscFunctionBegin;
  if (!blk.fmt) {
    PetscCall(GFViewLine(viewer, all_ranks, "%s: %s layout not built (built at the first use after assembly; bound to the CPU)\n", label, gm.ops->root));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const FormatBlock &f         = *blk.fmt;
  const double       csr_b     = csr_bytes(f.nnz, f.nrows);
  const std::string  name      = GFLayoutName(gm, blk);
  PetscCall(GFViewLine(viewer, all_ranks, "%s: %s on %s, %d x %d, %" PetscInt64_FMT " nonzeros, %" PetscInt64_FMT " stored slots (%.1f%% padding)\n", label, name.c_str(), blk.backend == Backend::cuda ? "cuda" : "host", f.nrows, f.ncols, (PetscInt64)f.nnz, (PetscInt64)f.nslots,
                                   f.nslots ? 100.0 * (double)(f.nslots - f.nnz) / (double)f.nslots : 0.0));
  if (!blk.layout_reason.empty()) PetscCall(GFViewLine(viewer, all_ranks, "%s: %s (-mat_gpuformats_block %s, -mat_gpuformats_stencil %s)\n", label, blk.layout_reason.c_str(), select::kBlockModeNames[gm.opt.block_mode], select::kStencilModeNames[gm.opt.stencil_mode]));
  PetscCall(GFViewLine(viewer, all_ranks, "%s: %zu bytes read per product (%.3fx CSR), %zu bytes slot map for values-only refresh; %" PetscInt_FMT " builds, %" PetscInt_FMT " values-only refreshes, %" PetscInt_FMT " in-place edits, %" PetscInt_FMT " products\n", label, f.bytes(), csr_b > 0 ? (double)f.bytes() / csr_b : 0.0, f.map_bytes(), blk.builds, blk.refreshes, blk.edits, blk.products));
  if (blk.backend == Backend::cuda) {
    char build[96], refresh[96];
    PetscCall(StageText(blk.last_build, build, sizeof(build)));
    PetscCall(StageText(blk.last_refresh, refresh, sizeof(refresh)));
    PetscCall(GFViewLine(viewer, all_ranks, "%s: last build %s; last values-only refresh %s (CUDA events; uploads staged by %" PetscInt_FMT " host threads)\n", label, build, refresh, gm.opt.upload_threads));
  } else PetscCall(GFViewLine(viewer, all_ranks, "%s: last build and values-only refresh: upload and device times not measured (host backend)\n", label));
  if (blk.transposed) PetscCall(GFViewLine(viewer, all_ranks, "%s: transposed layout (A's CSC for cuSPARSE, made by the first transposed product): %zu bytes on the device; %" PetscInt_FMT " transposed products\n", label, blk.transposed->bytes(), blk.transposed_products));
  if (blk.symmetric_transposes) PetscCall(GFViewLine(viewer, all_ranks, "%s: %" PetscInt_FMT " transposed products ran as the product: the layout found the values symmetric\n", label, blk.symmetric_transposes));
  for (const std::string &line : blk.layout_view) PetscCall(GFViewLine(viewer, all_ranks, "%s: %s\n", label, line.c_str()));
  std::vector<LayoutStat> stats;
  f.describe(stats);
  for (const LayoutStat &st : stats) PetscCall(GFViewLine(viewer, all_ranks, "%s:   %s: %s\n", label, st.key.c_str(), st.value.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFShadowView(const GFShadow &sh, const GFBlock &blk, const char *label, PetscViewer viewer, PetscBool all_ranks)
{
  PetscFunctionBegin;
  if (!sh.S || !sh.on_device || !blk.fmt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GFViewLine(viewer, all_ranks, "%s: cuSPARSE view for factorizations: %.0f bytes on the device (a CSR)\n", label, csr_bytes(blk.fmt->nnz, blk.fmt->nrows)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
