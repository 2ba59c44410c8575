// The block-or-scalar rule (block_layout.hpp).
#include "block_layout.hpp"

#include "formats/bell/bell.hpp"

namespace gpuformats::select {

const char *const kBlockModeNames[3] = {"auto", "scalar", "block"};

BlockDecision choose_block_layout(const CsrView &A, int32_t bs, BlockMode mode)
{
  BlockDecision d;
  const std::string bsz = std::to_string(bs);
  if (mode == BlockMode::scalar) {
    d.reason = "scalar layout, as -mat_gpuformats_block scalar asks";
    return d;
  }
  if (bs < 2 || bs > bell::kMaxBlockSize) {
    if (mode == BlockMode::block)
      throw Error(ErrorKind::bad_input, "-mat_gpuformats_block block needs a block size from 2 to " + std::to_string(bell::kMaxBlockSize) + " (MatSetBlockSize(), a DMDA's dof); this matrix has " + bsz);
    d.reason = bs < 2 ? "scalar layout: block size 1 (no MatSetBlockSize(), or a DMDA with dof 1)" : "scalar layout: block size " + bsz + " is above the block layout's largest, " + std::to_string(bell::kMaxBlockSize);
    return d;
  }
  std::string why = bell::shape_violation(A.nrows, A.ncols, bs);
  for (int32_t br = 0; why.empty() && br < A.nrows / bs; ++br)
    for (int32_t a = 0; a < bs; ++a) {
      const int32_t i = br * bs + a, len = A.row_length(i), len0 = A.row_length(br * bs);
      if (len % bs != 0 || len != len0) {
        why = "row " + std::to_string(i) + " has " + std::to_string(len) + " entries" + (len % bs != 0 ? ", not a multiple of " + bsz : ", row " + std::to_string(br * bs) + " of its block row " + std::to_string(len0));
        break;
      }
    }
  if (!why.empty()) {
    if (mode == BlockMode::block) throw Error(ErrorKind::unsupported, "-mat_gpuformats_block block: the matrix is not block-dense with block size " + bsz + ": " + why + "; use -mat_gpuformats_block auto or scalar");
    d.reason = "scalar layout: block size " + bsz + " but not block-dense (" + why + ")";
    return d;
  }
  d.block  = true;
  d.bs     = bs;
  d.reason = "block layout (BELL): block-dense with block size " + bsz + ", one column index per " + bsz + "x" + bsz + " block" + (mode == BlockMode::block ? ", as -mat_gpuformats_block block asks" : "");
  return d;
}

BlockDecision refused_block_layout(const Error &refusal, int32_t bs, BlockMode mode)
{
  const std::string why = without_fits_hint(refusal);
  if (mode == BlockMode::block) throw Error(ErrorKind::unsupported, "-mat_gpuformats_block block: " + why + "; use -mat_gpuformats_block auto or scalar");
  BlockDecision d;
  d.reason = "scalar layout: block size " + std::to_string(bs) + " but the block layout refused it (" + why + ")";
  return d;
}

} // namespace gpuformats::select
