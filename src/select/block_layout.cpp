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
  std::string why;
  if (!bell::block_dense(A, bs, &why)) {
    if (mode == BlockMode::block) throw Error(ErrorKind::unsupported, "-mat_gpuformats_block block: the matrix is not block-dense with block size " + bsz + ": " + why + "; use -mat_gpuformats_block auto or scalar");
    d.reason = "scalar layout: block size " + bsz + " but not block-dense (" + why + ")";
    return d;
  }
  d.block  = true;
  d.bs     = bs;
  d.reason = "block layout (BELL): block-dense with block size " + bsz + ", one column index per " + bsz + "x" + bsz + " block" + (mode == BlockMode::block ? ", as -mat_gpuformats_block block asks" : "");
  return d;
}

} // namespace gpuformats::select
