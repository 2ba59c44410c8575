// Matrix Market reader: a `.mtx` file in coordinate format into an owning host CSR (0-based, int32
// indices, double values, sorted unique columns per row). No PETSc here.
//
//   %%MatrixMarket matrix coordinate <field> <symmetry>
//   field:    real | integer | pattern (pattern entries get the value 1.0)
//   symmetry: general | symmetric | skew-symmetric | hermitian (hermitian of a real field = symmetric)
//
// Symmetric files store one triangle: every off-diagonal entry (i, j) is mirrored to (j, i)
// (negated for skew-symmetric). Duplicate entries are summed (as PETSc's ADD_VALUES would);
// explicitly stored zeros are kept (they are part of the pattern). Windows line endings and
// Fortran exponents (1.0D+00) are accepted.
//
// Anything else throws gpuformats::Error naming the file and the line: a missing or malformed
// banner, `array` (dense) or `complex` files (ErrorKind::unsupported), indices out of range (e.g.
// a 0-based file), too few or too many entries, dimensions or a nonzero count beyond int32.
#pragma once
#include "core/csr.hpp"

#include <string>

namespace gpuformats {

CsrMatrix read_matrix_market(const std::string &path);

// The same from text already in memory (`name` is used in error messages only).
CsrMatrix parse_matrix_market(const std::string &text, const std::string &name);

// Writes A as `%%MatrixMarket matrix coordinate real general` with 17 significant digits (so a
// read gives back the same doubles). Throws Error(bad_input) when the file cannot be written.
void write_matrix_market(const CsrView &A, const std::string &path);

} // namespace gpuformats
