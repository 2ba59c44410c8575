// Format selection: the row-strip features of a matrix and the partition of its strips into blocks,
// each block in the format with the least predicted time. The predicted time of a block comes from
// the caller: the calibrated model of src/model (model.hpp's dp_cost). gpuauto (model/auto.hpp) runs
// this partition over its strips for reporting only (-info, -mat_view ::ascii_info); it builds one
// layout per matrix block, the candidate predicted fastest for the whole block.
//
// Guo, Wang, Chen, "A Performance Modeling and Optimization Analysis Tool for Sparse Matrix-Vector
// Multiplication on GPUs", section 4, Fig. 11: strips [1..N] in their natural order; E[i, j] the
// least predicted time of the block of strips i..j and F[i, j] its format; bottom up,
//   T[1, j] = min( E[1, j], min_{k<j} T[1, k] + E[k+1, j] ),  S[1, j] the k taken (j: one block),
// N(N+1)/2 block predictions, N^2/2 sums, against 2^(N-1) partitions enumerated.
#pragma once
#include "core/csr.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace gpuformats::select {

// One strip of consecutive rows: what the model reads (the paper's rows and nonzeros per row; the
// column span because on today's GPUs the gather of x, not the matrix stream, bounds irregular
// matrices: bench/experiments/gather-bound).
struct StripFeatures {
  int32_t first_row = 0, rows = 0;
  int64_t nnz       = 0;
  int32_t max_row   = 0;    // longest row
  int64_t col_span  = 0;    // largest column - smallest column + 1 over the strip (0: no entries)
};
// Strips of strip_rows rows (the last may be shorter); strip_rows >= 1.
std::vector<StripFeatures> strip_features(const CsrView &A, int32_t strip_rows);

struct Block {
  int    first_strip = 0, last_strip = 0; // inclusive, 0-based
  int    format      = -1;                // the format the cost function chose for it
  double time        = 0;                 // its predicted time
};
struct Partition {
  std::vector<Block> blocks;             // in strip order, covering every strip once
  double             time = 0;           // their sum: T[1, N]
  Block              single;             // the whole matrix as one block (E[1, N], F[1, N])
  bool               partitioned() const { return blocks.size() > 1; } // a split beats one format
};
// cost(i, j, &format): the least predicted time of the block of strips i..j (0-based, inclusive)
// and the format that gives it. Called once per block. A split is taken only where it is strictly
// faster, so equal times keep one block (one layout to build). nstrips >= 1.
Partition partition_strips(int nstrips, const std::function<double(int, int, int *)> &cost);

} // namespace gpuformats::select
