// Matrix generators for tests and the benchmark: deterministic for a seed (whatever the thread
// count), sized by their own parameters or by a target number of nonzeros, every row with sorted,
// unique column indices. Pure C++ (no PETSc); generation runs on all cores.
//
// A spec is   name[:key=value[,key=value...]]   numbers may be written 2e7, 20M, 1.5G, 64k.
// Every generator takes nnz=<target> instead of its size parameter (the size is derived from it,
// so the count is approximate) and seed=<s> to override the seed argument.
//
//   stencil2d5:n=2000                 2D 5-point stencil on an n x n grid (also nx=,ny=)
//   stencil3d7:n=200                  3D 7-point stencil on n^3 (also nx=,ny=,nz=); alias stencil7
//   stencil27:n=128                   3D 27-point stencil on n^3; alias stencil3d27
//   convdiff3d:n=100,pe=10            3D convection-diffusion -Lap(u) + w.grad(u) on n^3 (also
//                                     nx=,ny=,nz=), 7-point, first-order upwind, Dirichlet rows
//                                     eliminated: -1 per neighbour, -pe*|w_d| more on the upwind one,
//                                     diagonal 6 + pe*sum|w_d|; wind wx=1,wy=0.5,wz=0.25 normalised,
//                                     pe the cell Peclet number. Deterministic values, an M-matrix,
//                                     non-symmetric for pe > 0
//   fem:rows=1e6,min=10,max=80        unstructured-FEM-like: row lengths uniform in [min,max], the
//                                     diagonal plus columns near the row and near row +- plane
//                                     (plane= defaults to rows^(2/3), as a 3D mesh numbering gives)
//   rmat:scale=21,ef=16               R-MAT power-law graph, Graph500 parameters a=.57 b=.19 c=.19,
//                                     2^scale vertices, ef*2^scale edges (duplicates merged), vertex
//                                     ids scrambled (perm=0 keeps the heavy rows first); directed
//   randrows:n=40000,minpct=1,maxpct=5 row lengths uniform in minpct..maxpct % of n, columns uniform
//                                     at random (evchyb paper 3.4); or minlen=,maxlen= in entries
//   longrows:n=8e6,k=2,share=0.2      short banded rows (minlen=1..maxlen=10, within bw=32 of the
//                                     diagonal) plus k rows at random positions holding `share` of
//                                     all nonzeros, with random columns (the ibm-dc1 shape)
//   blocks5:n=1e6                     dense 5x5 blocks (bs=), minb=4..maxb=12 blocks per block row
//                                     at FEM-like local block columns (the DLR2 shape)
//   circuit:n=1e7                     circuit-like: rows of minlen=2..maxlen=6 (diagonal, mostly
//                                     within bw=64, 1-plocal at random), ndense=4 dense nodes whose
//                                     rows hold densefrac=0.05 of n columns and whose columns are hit
//                                     by a fraction pdense=0.2 of the rows
//   banded:n=1e6,bw=20                band of half-width bw (rows of 2*bw+1), full by default;
//                                     fill=0.5 keeps that fraction of it at random, diagonal always
//   kkt:n=1e6,m=2.5e5,clen=4          KKT saddle point [H B^T; B -delta I] of an equality-constrained
//                                     problem, n + m rows: H the 7-point stencil on k^3 points
//                                     (k = round(cbrt(n)), so n becomes k^3), B m x n with clen
//                                     distinct uniform random columns a row (m= or ratio=0.25 of n),
//                                     B^T its exact transpose (a symmetric pattern), the m x m block
//                                     its diagonal -delta only (delta=1e-3: no row empty); H's
//                                     diagonal is its row's length (strictly diagonally dominant)
//   scaled:file=X.mtx,target_nnz=5e7  a real matrix replicated R = ceil(target/nnz) times along the
//                                     diagonal, copy r taking the column block pi(r) of a seeded
//                                     permutation (shuffle=0: block diagonal): the row-length
//                                     distribution and the locality within each copy are kept
//                                     exactly; nnz= is the same as target_nnz=
//   joined:first=stencil3d7,second=rmat,share=0.5,nnz=1e6
//                                     block-diagonal: `first`'s matrix (share of nnz), then
//                                     `second`'s (the rest), each at its other defaults: matrices
//                                     of unlike parts, where a partitioned layout may pay
//
//   blockstencil3d:n=100,bs=3         3D 7-point stencil on n^3 points (also nx=,ny=,nz=) with bs
//                                     unknowns each: every coupling a dense bs x bs block; carries
//                                     block size bs; n from nnz= counts the boundary exactly
//   blockfem:n=4e5,bs=3               FEM-like: a symmetric mesh graph of n nodes (node i links to
//                                     min/2..ceil(max/2) nodes ahead, near i and near i + plane, so
//                                     degrees average (min+max)/2, default min=10,max=30; plane=
//                                     defaults to n^(2/3)), bs unknowns per node, every coupling a
//                                     dense bs x bs block; carries block size bs
//   The block generators' diagonal entries are the row's length (the rest below 1 in magnitude):
//   strictly diagonally dominant. Any generator takes blocksize=<b> (b divides rows and columns):
//   the block size the matrix carries (CsrMatrix::block_size, for MatSetBlockSize), whether or not
//   its blocks are dense (blocks5 carries none unless given blocksize=).
//
// Values (but convdiff3d's, kkt's and the block generators' diagonals) are pseudo-random in [-1,-0.1] U [0.1,1], a function of (seed, row, column);
// symmetric=1 (any square generator with a symmetric pattern) makes them a function of (seed, min, max).
#pragma once
#include "core/csr.hpp"

#include <cstdint>
#include <string>

namespace gpuformats {

// Builds the matrix a spec describes. Throws Error(bad_input) naming the problem for an unknown
// generator or parameter or an out-of-range value, Error(unsupported) when the result would not
// fit 32-bit indices.
CsrMatrix generate_matrix(const std::string &spec, uint64_t seed);

// True when `spec` names a generator (its text before ':' is a known generator name).
bool is_generator_spec(const std::string &spec);

// The list above, one generator per line, for -help texts.
std::string generator_help();

// The scaling transform behind `scaled:`: copies of `base` (see above), at least target_nnz
// nonzeros in all (one copy at least).
CsrMatrix scale_matrix(const CsrMatrix &base, int64_t target_nnz, uint64_t seed, bool shuffle = true);

} // namespace gpuformats
