// DIA's device builder and product thread body, generic over where they run (core/thrust_system.cuh):
// dia_cuda.cu runs them on the GPU, test_dia_build the very same code on thrust::host against the
// host builder (dia_host.cpp). Layout and invariants: dia.hpp.
//
// The build, in Thrust:
//   1. the first longest row (max_element of the row lengths: the first of the greatest), its
//      columns to the host: the offsets, then plan() (the padding refusal before any allocation)
//   2. slot_of_csr[k] = d*S + row(k) from core's entry_rows and a search of the offsets (-1 where
//      the entry's offset is not one of them); the first such entry refused with the host's
//      message, before the padded values are allocated
//   3. values zeroed, the CSR values scattered to their slots
#pragma once
#include "dia.hpp"
#include "dia_rows.hpp"

#include "../../core/entry_rows.cuh"
#include "../../core/loads.cuh"
#include "../../core/thrust_system.cuh"

#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuformats {
namespace dia {

constexpr int kThreads = 256;

// slot of entry k: d*S + row, or -1 where col - row is not an offset (offsets ascending).
struct EntrySlot {
  KernelArgs     k;
  const int32_t *colidx;
  GPUFORMATS_HD int32_t operator()(int32_t row, int64_t e) const
  {
    const int32_t off = colidx[e] - row;
    int32_t       lo = 0, hi = k.ndiag;
    while (lo < hi) {
      const int32_t mid = (lo + hi) / 2;
      if (k.offsets[mid] < off) lo = mid + 1;
      else hi = mid;
    }
    return lo < k.ndiag && k.offsets[lo] == off ? lo * k.stride + row : -1;
  }
};
struct IsMissing {
  GPUFORMATS_HD bool operator()(int32_t s) const { return s < 0; }
};

template <class Sys>
struct Arrays : Geometry {
  typename Sys::template buffer<double>  values;
  typename Sys::template buffer<int32_t> slot_of_csr;
  KernelArgs kernel_args() const { return dia::kernel_args(*this, values.data()); }
};

// Every array of dia.hpp from a CSR in the system's memory, or build_host's exceptions.
template <class Sys>
void build_arrays(const Sys &sys, const int32_t *rowptr, const int32_t *colidx, const double *csr_values, int32_t nrows, int32_t ncols, int64_t nnz, const Limits &lim, Arrays<Sys> &out)
{
  auto pol  = sys.policy();
  out.nrows = nrows, out.ncols = ncols, out.nnz = nnz, out.rows_per_thread = lim.rows_per_thread;
  if (nrows > 0 && nnz > 0) {
    const thrust::counting_iterator<int32_t> zero(0);
    const auto len = thrust::make_transform_iterator(zero, RowLength{rowptr});
    const int32_t r   = (int32_t)(thrust::max_element(pol, len, len + nrows) - len);
    int32_t       rp[2];
    sys.to_host(rp, rowptr + r, 2);
    if (rp[1] - rp[0] > lim.max_diags) throw too_many_offsets_error(r, rp[1] - rp[0], lim.max_diags);
    out.ndiag = rp[1] - rp[0];
    sys.to_host(out.offsets, colidx + rp[0], out.ndiag);
    for (int32_t d = 0; d < out.ndiag; ++d) out.offsets[d] -= r;
  }
  plan(out, lim, sys.free_bytes());
  out.slot_of_csr.resize(nnz);
  if (nnz > 0) { // every entry's slot, checked before the padded values are allocated
    entry_rows(pol, rowptr, nrows, nnz, out.slot_of_csr.data());
    const thrust::counting_iterator<int64_t> first(0);
    thrust::transform(pol, out.slot_of_csr.data(), out.slot_of_csr.data() + nnz, first, out.slot_of_csr.data(), EntrySlot{out.kernel_args(), colidx});
    const int64_t bad = thrust::find_if(pol, out.slot_of_csr.data(), out.slot_of_csr.data() + nnz, IsMissing{}) - out.slot_of_csr.data();
    if (bad < nnz) {
      // The entry's row: the last row starting at or before it.
      std::vector<int32_t> rp(nrows + 1);
      sys.to_host(rp.data(), rowptr, nrows + 1);
      const int32_t row = (int32_t)(std::upper_bound(rp.begin(), rp.end(), (int32_t)bad) - rp.begin()) - 1;
      throw offset_error(row, sys.get(colidx + bad), out);
    }
  }
  out.values.resize(out.nslots);
  if (out.nslots) thrust::fill(pol, out.values.data(), out.values.data() + out.nslots, 0.0);
  if (nnz == 0) return;
  thrust::scatter(pol, csr_values, csr_values + nnz, out.slot_of_csr.data(), out.values.data());
  sys.sync();
}

} // namespace dia
} // namespace gpuformats
