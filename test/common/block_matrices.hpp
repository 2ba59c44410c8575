// Block matrices for the BELL tests (test_bell, test_bell_build, test_bell_variants).
#pragma once
#include "common/test_matrices.hpp"

#include <algorithm>
#include <random>
#include <vector>

namespace gftest {

// Random dense bs x bs blocks: block row br holds 0..maxb distinct block columns (none where
// empty_every divides br + 1), values random in [-1, 1].
inline CsrMatrix random_blocks(int32_t nbrows, int32_t nbcols, int32_t bs, int32_t maxb, int32_t empty_every, uint64_t seed)
{
  std::mt19937_64                        rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  CsrMatrix                              A;
  A.nrows = nbrows * bs, A.ncols = nbcols * bs;
  for (int32_t br = 0; br < nbrows; ++br) {
    std::vector<int32_t> cols;
    if (!(empty_every && (br + 1) % empty_every == 0) && nbcols > 0) {
      const int32_t     n = std::uniform_int_distribution<int32_t>(0, std::min(maxb, nbcols))(rng);
      std::vector<char> used(nbcols, 0);
      for (int32_t t = 0; t < n; ++t) used[std::uniform_int_distribution<int32_t>(0, nbcols - 1)(rng)] = 1;
      for (int32_t c = 0; c < nbcols; ++c)
        if (used[c]) cols.push_back(c);
    }
    for (int32_t a = 0; a < bs; ++a) {
      for (int32_t bc : cols)
        for (int32_t b = 0; b < bs; ++b) A.colidx.push_back(bc * bs + b), A.values.push_back(val(rng));
      A.rowptr.push_back((int32_t)A.colidx.size());
    }
  }
  return A;
}

// blocks[br*bs*bs + a*bs + b] = A(br*bs + a, br*bs + b), 0 where not stored: the point-block diagonal.
inline std::vector<double> csr_block_diagonal(const gpuformats::CsrView &A, int32_t bs)
{
  std::vector<double> blocks((size_t)A.nrows * bs, 0.0);
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
      if (A.colidx[k] / bs == i / bs) blocks[(size_t)(i / bs) * bs * bs + (i % bs) * bs + A.colidx[k] % bs] = A.values[k];
  return blocks;
}

} // namespace gftest
