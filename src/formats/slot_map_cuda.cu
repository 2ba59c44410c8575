#include "slot_map.hpp"

#include <algorithm>
#include <cooperative_groups.h>
#include <thrust/count.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scatter.h>

namespace gpuformats {

void refresh_values_cuda(FormatBlock &blk, const double *csr_values_host, DeviceBuffer<double> &staging, cudaStream_t stream, const UploadContext &up)
{
  if (blk.nnz == 0) return;
  if (staging.size() < (size_t)blk.nnz) staging.resize((size_t)blk.nnz);
  if (up.timer) up.timer->upload_begin(stream);
  staging.upload(csr_values_host, (size_t)blk.nnz, stream, 0, up.threads);
  if (up.timer) up.timer->upload_end(stream);
  thrust::scatter(thrust::cuda::par.on(stream), staging.data(), staging.data() + blk.nnz, blk.slot_of_csr, blk.values);
  GPUFORMATS_CUDA(cudaGetLastError());
  blk.values_changed(stream);
}

void gather_csr_values_cuda(const FormatBlock &blk, double *d_out, cudaStream_t stream)
{
  if (blk.nnz == 0) return;
  thrust::gather(thrust::cuda::par.on(stream), blk.slot_of_csr, blk.slot_of_csr + blk.nnz, blk.values, d_out);
  GPUFORMATS_CUDA(cudaGetLastError());
}

__global__ static void diagonal_positions_kernel(const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colidx, int32_t nrows, int32_t *__restrict__ pos)
{
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nrows) return;
  int32_t lo = rowptr[i], hi = rowptr[i + 1]; // binary search for column i in [lo, hi)
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (colidx[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  pos[i] = lo < rowptr[i + 1] && colidx[lo] == i ? lo : -1;
}

int64_t diagonal_positions_cuda(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t *pos, cudaStream_t stream)
{
  if (nrows <= 0) return 0;
  diagonal_positions_kernel<<<(nrows + 255) / 256, 256, 0, stream>>>(rowptr, colidx, nrows, pos);
  GPUFORMATS_CUDA(cudaGetLastError());
  const int64_t missing = thrust::count(thrust::cuda::par.on(stream), pos, pos + nrows, -1);
  GPUFORMATS_CUDA(cudaGetLastError());
  return missing;
}

__global__ static void gather_diagonal_kernel(const double *__restrict__ values, const int32_t *__restrict__ slot_of_csr, const int32_t *__restrict__ diag_pos, int32_t n, double *__restrict__ d)
{
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int32_t p = diag_pos[i];
    d[i]            = p >= 0 ? values[slot_of_csr[p]] : 0.0;
  }
}

void gather_diagonal_cuda(const FormatBlock &blk, const int32_t *d_diag_pos, int32_t n, double *d_out, cudaStream_t stream)
{
  if (n <= 0) return;
  constexpr int threads = 256;
  gather_diagonal_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(blk.values, blk.slot_of_csr, d_diag_pos, n, d_out);
  GPUFORMATS_CUDA(cudaGetLastError());
}

// --- in-place value edits: one functor per edit, run by thrust on the block's backend ---

namespace {

template <class F>
void for_each_index(const FormatBlock &blk, int64_t n, cudaStream_t stream, F f)
{
  if (n <= 0) return;
  thrust::counting_iterator<int64_t> first(0);
  if (blk.backend == Backend::cuda) {
    thrust::for_each(thrust::cuda::par.on(stream), first, first + n, f);
    GPUFORMATS_CUDA(cudaGetLastError());
  } else thrust::for_each(thrust::host, first, first + n, f);
}

struct Scale {
  double *values;
  double  a;
  __host__ __device__ void operator()(int64_t s) const { values[s] *= a; }
};

struct SetAt {
  double        *values;
  const int32_t *slot, *pos;
  const double  *v;
  double         c;
  bool           add;
  __host__ __device__ void operator()(int64_t i) const
  {
    const int32_t p = pos[i];
    if (p < 0) return;
    double &x = values[slot[p]];
    x         = (add ? x : 0.0) + (v ? v[i] : c);
  }
};

struct ScaleRow {
  double        *values;
  const int32_t *slot, *rowptr, *cols;
  const double  *l, *r;
  __host__ __device__ void operator()(int64_t i) const
  {
    for (int32_t k = rowptr[i]; k < rowptr[i + 1]; ++k) { // rows first, then columns, as AIJ rounds
      double &v = values[slot[k]];
      if (l) v *= l[i];
      if (r) v *= r[cols[k]];
    }
  }
};

// A zeroed row r (r < ncols) after its entries: its diagonal entry diag where diag != 0 and it has
// one, and b[r] = diag * x[r] where x and b are given (MatZeroRows, MatZeroRowsColumns).
__host__ __device__ inline void set_zeroed_row(double *values, const int32_t *slot, const int32_t *diag_pos, double diag, const double *x, double *b, int64_t r)
{
  if (diag != 0.0 && diag_pos[r] >= 0) values[slot[diag_pos[r]]] = diag;
  if (x && b) b[r] = diag * x[r];
}

struct ZeroRow {
  double        *values;
  const int32_t *slot, *rowptr, *rows, *diag_pos;
  double         diag;
  const double  *x;
  double        *b;
  int32_t        ncols;
  __host__ __device__ void operator()(int64_t k) const
  {
    const int32_t r = rows[k];
    for (int32_t p = rowptr[r]; p < rowptr[r + 1]; ++p) values[slot[p]] = 0.0;
    if (r < ncols) set_zeroed_row(values, slot, diag_pos, diag, x, b, r);
  }
};

struct Mark {
  int32_t       *marks;
  const int32_t *rows;
  __host__ __device__ void operator()(int64_t k) const { marks[rows[k]] = 1; }
};

struct ZeroRowColumns {
  double        *values;
  const int32_t *slot, *rowptr, *cols, *marks, *diag_pos;
  double         diag;
  const double  *x;
  double        *b;
  __host__ __device__ void operator()(int64_t i) const
  {
    if (marks[i]) {
      for (int32_t p = rowptr[i]; p < rowptr[i + 1]; ++p) values[slot[p]] = 0.0;
      set_zeroed_row(values, slot, diag_pos, diag, x, b, i);
      return;
    }
    for (int32_t p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      const int32_t c = cols[p];
      if (!marks[c]) continue;
      double &v = values[slot[p]];
      if (x && b) b[i] -= v * x[c];
      v = 0.0;
    }
  }
};

// The device pass of ZeroRowColumns, kZeroLanes lanes a row (a thread a row reads its columns
// strided: 4.5 products at 27 entries a row). A listed row: the lanes zero its entries, then lane
// 0 sets the diagonal and b. Any other row: each lane takes one entry of each chunk of kZeroLanes,
// zeroes it where its column is listed, and lane 0 takes the terms from b one by one through the
// tile's shuffles, in the row's order, as AIJ subtracts them.
constexpr int kZeroLanes = 8;
__global__ static void zero_rows_columns_kernel(ZeroRowColumns f, int32_t nrows)
{
  const auto    tile = cooperative_groups::tiled_partition<kZeroLanes>(cooperative_groups::this_thread_block());
  const int64_t i    = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kZeroLanes;
  if (i >= nrows) return; // (a whole tile: its lanes share the row)
  const int     lane = (int)tile.thread_rank();
  const int32_t lo = f.rowptr[i], hi = f.rowptr[i + 1];
  if (f.marks[i]) {
    for (int32_t p = lo + lane; p < hi; p += kZeroLanes) f.values[f.slot[p]] = 0.0;
    tile.sync();
    if (lane == 0) set_zeroed_row(f.values, f.slot, f.diag_pos, f.diag, f.x, f.b, i);
    return;
  }
  const bool vecs = f.x && f.b;
  double     bi   = vecs && lane == 0 ? f.b[i] : 0.0;
  bool       hit  = false;
  for (int32_t p0 = lo; p0 < hi; p0 += kZeroLanes) {
    const int32_t p    = p0 + lane;
    const int32_t c    = p < hi ? f.cols[p] : 0;
    const bool    mine = p < hi && f.marks[c];
    double        t    = 0.0;
    if (mine) {
      double &v = f.values[f.slot[p]];
      if (vecs) t = v * f.x[c];
      v = 0.0;
    }
    const unsigned any = tile.ballot(mine);
    hit                = hit || any;
    if (vecs && any) // lane 0 subtracts the chunk's terms in order
      for (int j = 0; j < kZeroLanes; ++j) {
        const double tj = tile.shfl(t, j);
        if (lane == 0 && (any >> j & 1u)) bi -= tj;
      }
  }
  if (vecs && hit && lane == 0) f.b[i] = bi;
}

struct AxpySlots {
  double       *y;
  const double *x;
  double        a;
  __host__ __device__ void operator()(int64_t s) const { y[s] += a * x[s]; }
};

// PETSc's COO map (MatSetPreallocationCOO): CSR entry k sums v[perm[p]] for p in [jmap[k], jmap[k+1]),
// in that order (AIJ's rounding), duplicates included.
struct Coo {
  double        *values;
  const int32_t *slot;
  const int64_t *jmap, *perm;
  const double  *v;
  bool           add;
  __host__ __device__ void operator()(int64_t k) const
  {
    double sum = 0.0;
    for (int64_t p = jmap[k]; p < jmap[k + 1]; ++p) sum += v[perm[p]];
    double &x = values[slot[k]];
    x         = (add ? x : 0.0) + sum;
  }
};

struct CooSlot { // slot_of_coo[perm[k]] = slot_of_csr[k]
  int32_t       *slot_of_coo;
  const int32_t *slot;
  const int64_t *perm;
  __host__ __device__ void operator()(int64_t k) const { slot_of_coo[perm[k]] = slot[k]; }
};

struct CooUnique {
  double        *values;
  const int32_t *slot_of_coo;
  const double  *v;
  bool           add;
  __host__ __device__ void operator()(int64_t e) const
  {
    const int32_t s = slot_of_coo[e];
    if (s < 0) return;
    values[s] = (add ? values[s] : 0.0) + v[e];
  }
};

struct CooReceived {
  double        *values;
  const int32_t *slot;
  const int64_t *imap, *jmap, *perm;
  const double  *v;
  __host__ __device__ void operator()(int64_t i) const
  {
    double &x = values[slot[imap[i]]];
    for (int64_t p = jmap[i]; p < jmap[i + 1]; ++p) x += v[perm[p]];
  }
};

struct Axpy {
  double        *y;
  const double  *x;
  const int32_t *ys, *xs;
  double         a;
  __host__ __device__ void operator()(int64_t k) const { y[ys[k]] += a * x[xs[k]]; }
};

} // namespace

void scale_values(FormatBlock &blk, double a, cudaStream_t stream)
{
  for_each_index(blk, blk.nslots, stream, Scale{blk.values, a});
  blk.values_changed(stream);
}

void zero_values(FormatBlock &blk, cudaStream_t stream)
{
  if (blk.nslots <= 0) return;
  if (blk.backend == Backend::cuda) GPUFORMATS_CUDA(cudaMemsetAsync(blk.values, 0, (size_t)blk.nslots * sizeof(double), stream));
  else std::fill(blk.values, blk.values + blk.nslots, 0.0);
  blk.values_changed(stream);
}

void set_at_positions(FormatBlock &blk, const int32_t *pos, int32_t n, const double *v, double c, bool add, cudaStream_t stream)
{
  for_each_index(blk, n, stream, SetAt{blk.values, blk.slot_of_csr, pos, v, c, add});
  blk.values_changed(stream);
}

void coo_values(FormatBlock &blk, const int64_t *jmap, const int64_t *perm, const double *v, bool add, cudaStream_t stream)
{
  for_each_index(blk, blk.nnz, stream, Coo{blk.values, blk.slot_of_csr, jmap, perm, v, add});
  blk.values_changed(stream);
}

void coo_slots(const FormatBlock &blk, const int64_t *perm, int32_t *slot_of_coo, int64_t n, cudaStream_t stream)
{
  if (n <= 0) return;
  if (blk.backend == Backend::cuda) GPUFORMATS_CUDA(cudaMemsetAsync(slot_of_coo, 0xff, (size_t)n * sizeof(int32_t), stream)); // -1: ignored entries
  else std::fill(slot_of_coo, slot_of_coo + n, -1);
  for_each_index(blk, blk.nnz, stream, CooSlot{slot_of_coo, blk.slot_of_csr, perm});
}

void coo_values_unique(FormatBlock &blk, const int32_t *slot_of_coo, int64_t n, const double *v, bool add, cudaStream_t stream)
{
  for_each_index(blk, n, stream, CooUnique{blk.values, slot_of_coo, v, add});
  blk.values_changed(stream);
}

void coo_add_received(FormatBlock &blk, const int64_t *imap, const int64_t *jmap, const int64_t *perm, int64_t n, const double *v, cudaStream_t stream)
{
  for_each_index(blk, n, stream, CooReceived{blk.values, blk.slot_of_csr, imap, jmap, perm, v});
  blk.values_changed(stream);
}

void coo_pack(Backend backend, const int64_t *perm, int64_t n, const double *v, double *out, cudaStream_t stream)
{
  if (n <= 0) return;
  if (backend == Backend::cuda) {
    thrust::gather(thrust::cuda::par.on(stream), perm, perm + n, v, out);
    GPUFORMATS_CUDA(cudaGetLastError());
  } else thrust::gather(thrust::host, perm, perm + n, v, out);
}

void scale_rows_cols(FormatBlock &blk, const int32_t *rowptr, const int32_t *cols, const double *l, const double *r, cudaStream_t stream)
{
  for_each_index(blk, blk.nrows, stream, ScaleRow{blk.values, blk.slot_of_csr, rowptr, cols, l, r});
  blk.values_changed(stream);
}

void zero_rows(FormatBlock &blk, const int32_t *rowptr, const int32_t *rows, int32_t n, const int32_t *diag_pos, double diag, const double *x, double *b, int32_t ncols, cudaStream_t stream)
{
  for_each_index(blk, n, stream, ZeroRow{blk.values, blk.slot_of_csr, rowptr, rows, diag_pos, diag, x, b, ncols});
  blk.values_changed(stream);
}

void zero_rows_columns(FormatBlock &blk, const int32_t *rowptr, const int32_t *cols, const int32_t *rows, int32_t n, int32_t *marks, const int32_t *diag_pos, double diag, const double *x, double *b, cudaStream_t stream)
{
  if (blk.nrows <= 0) return;
  if (blk.backend == Backend::cuda) GPUFORMATS_CUDA(cudaMemsetAsync(marks, 0, (size_t)blk.nrows * sizeof(int32_t), stream));
  else std::fill(marks, marks + blk.nrows, 0);
  for_each_index(blk, n, stream, Mark{marks, rows});
  const ZeroRowColumns f{blk.values, blk.slot_of_csr, rowptr, cols, marks, diag_pos, diag, x, b};
  if (blk.backend == Backend::cuda) {
    constexpr int threads = 256;
    zero_rows_columns_kernel<<<(int)(((int64_t)blk.nrows * kZeroLanes + threads - 1) / threads), threads, 0, stream>>>(f, blk.nrows);
    GPUFORMATS_CUDA(cudaGetLastError());
  } else for_each_index(blk, blk.nrows, stream, f);
  blk.values_changed(stream);
}

void axpy_values(FormatBlock &Y, double a, const FormatBlock &X, bool same_layout, cudaStream_t stream)
{
  if (X.nnz != Y.nnz || X.backend != Y.backend || (same_layout && X.nslots != Y.nslots)) throw Error(ErrorKind::internal, "axpy_values: the two layouts differ in pattern or backend");
  if (same_layout) for_each_index(Y, Y.nslots, stream, AxpySlots{Y.values, X.values, a}); // padding: 0 + a * 0
  else for_each_index(Y, Y.nnz, stream, Axpy{Y.values, X.values, Y.slot_of_csr, X.slot_of_csr, a});
  Y.values_changed(stream);
}

bool same_slot_map(const FormatBlock &X, const FormatBlock &Y, cudaStream_t stream)
{
  if (X.nnz != Y.nnz || X.nslots != Y.nslots || X.backend != Y.backend) return false;
  if (X.nnz == 0) return true;
  if (X.backend == Backend::host) return std::equal(X.slot_of_csr, X.slot_of_csr + X.nnz, Y.slot_of_csr);
  const bool same = thrust::equal(thrust::cuda::par.on(stream), X.slot_of_csr, X.slot_of_csr + X.nnz, Y.slot_of_csr);
  GPUFORMATS_CUDA(cudaGetLastError());
  return same;
}

} // namespace gpuformats
