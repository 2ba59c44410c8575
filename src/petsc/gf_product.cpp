// Sparse matrix-matrix products of the seq types (MatMatMult, MatTransposeMatMult,
// MatMatTransposeMult, MatPtAP, MatRARt, MatMatMatMult; GAMG's prolongator smoothing and Galerkin
// coarse operators) on the GPU, through PETSc's own cuSPARSE products (SpGEMM) on device operands:
//
//   our matrix X       -> its cuSPARSE shadow (gf_factor.cpp: X's host CSR arrays, device values
//                         gathered from the format; the factorizations' view, shared)
//   a plain seqaij X   -> a seqaijcusparse copy, kept with the product (its values copied again
//                         when X changed)
//   a seqaijcusparse X -> X itself
//
//   the result C (-mat_gpuformats_product_result, default aijcusparse):
//     aijcusparse: cuSPARSE's symbolic and numeric phases run on C itself with the device operands
//                  (PETSc's MatProductSymbolic_ABC_Basic does the same with its intermediate): C is
//                  exactly what aijcusparse's product would make, and the next level's products
//                  are PETSc's own device path
//     format:      C is of the format of the first of our operands (with its options, GFInherit),
//                  on the pattern of a cuSPARSE product made beside it; each numeric phase copies
//                  that product's values into C's host AIJ (the master copy), from which the
//                  layout refreshes at its next use (one values-only upload)
//
// MatProduct's split holds: the symbolic phase makes the device operands and cuSPARSE's product
// structure; the numeric phase (MAT_REUSE_MATRIX, GAMG's reuse of its interpolation, SNES
// re-setups) brings each device operand to the current values of its matrix (the shadow's gather
// from the format, the copy's values) and runs cuSPARSE's numeric phase only: no new symbolic phase.
//
// The device path is taken on the cuda backend only, for assembled matrices not bound to the CPU
// (the test the products use, GFUseFormat), of our seq types (not an MPI matrix's local block, whose
// products MPIAIJ's own code drives), plain seqaij or seqaijcusparse. Everything else (the host
// backend, a dense or MPI operand, -mat_gpuformats_backend host) goes to AIJ's MatProduct code, as
// before these types had their own, so host results are AIJ's exactly.
#include "gf_mat.hpp"

#include <petscdevice_cuda.h>

namespace gpuformats {

const char *const GFProductResults[] = {"aijcusparse", "format"};

namespace {

enum class Operand { ours, aij, cusparse, other };

// Whether X can be an operand of the device path, and how.
PetscErrorCode Classify(Mat X, Operand *kind)
{
  PetscBool ours, is;

  PetscFunctionBegin;
  *kind = Operand::other;
  if (!X->assembled || X->factortype != MAT_FACTOR_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatsIsType(X, &ours));
  if (ours) {
    const GFMat &gm = gf(X);
    if (!gm.mpi && !gm.adopted && !X->boundtocpu && resolve_backend(gm) == Backend::cuda && cuda_device_present()) *kind = Operand::ours;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &is));
  if (is) {
    if (!X->boundtocpu) *kind = Operand::cusparse;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJ, &is)); // a plain seqaij is bound to the CPU by MatCreate: that says nothing here
  if (is) *kind = Operand::aij;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The product's matrices (C only for ABC).
int Operands(const Mat_Product *p, Mat X[3])
{
  X[0] = p->A;
  X[1] = p->B;
  X[2] = p->type == MATPRODUCT_ABC ? p->C : nullptr;
  return X[2] ? 3 : 2;
}

// Whether every matrix of the product can take the device path; parent: the first of ours.
PetscErrorCode OnDevice(Mat C, PetscBool *device, Mat *parent)
{
  Mat_Product *p = C->product;
  Mat          X[3];
  const int    n = Operands(p, X);

  PetscFunctionBegin;
  *device = PETSC_FALSE;
  *parent = nullptr;
  switch (p->type) {
  case MATPRODUCT_AB:
  case MATPRODUCT_AtB:
  case MATPRODUCT_ABt:
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt:
  case MATPRODUCT_ABC:
    break;
  default:
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (C->structure_only) PetscFunctionReturn(PETSC_SUCCESS); // PETSc takes graph products to the host CSR itself
  for (int i = 0; i < n; ++i) {
    Operand kind;
    PetscCall(Classify(X[i], &kind));
    if (kind == Operand::other) PetscFunctionReturn(PETSC_SUCCESS);
    if (kind == Operand::ours && !*parent) *parent = X[i];
  }
  *device = *parent ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What our product keeps in C->product->data.
struct GFProduct {
  Mat              dev[3] = {};            // the device operand of each matrix (referenced or owned)
  Mat              src[3] = {};            // the matrix each was made for (the product holds those)
  Operand          kind[3] = {};
  PetscObjectState copied[3] = {-1, -1, -1}; // plain seqaij: the state its copy holds
  Mat              inner = nullptr; // the cuSPARSE product on dev[]: its product data (aijcusparse result) or itself (format result)
  bool             format = false;  // C is of our format (else seqaijcusparse)
  PetscInt         nz     = 0;      // format: C's nonzeros
  PetscErrorCode (*numeric)(Mat) = nullptr; // cuSPARSE's numeric phase
};

PetscErrorCode DestroyProduct(PetscCtxRt ctx)
{
  GFProduct *g = *(GFProduct **)ctx;

  PetscFunctionBegin;
  for (Mat &d : g->dev) PetscCall(MatDestroy(&d));
  PetscCall(MatDestroy(&g->inner));
  delete g;
  *(GFProduct **)ctx = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A plain seqaij's copy takes its current values (host copy; cuSPARSE uploads them at its next use).
PetscErrorCode CopyValues(Mat X, Mat D)
{
  const PetscScalar *x;
  PetscScalar       *d;
  MatInfo            ix, id;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(X, MAT_LOCAL, &ix));
  PetscCall(MatGetInfo(D, MAT_LOCAL, &id));
  PetscCheck(ix.nz_used == id.nz_used, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "gpuformats: a matrix of this product changed its nonzero pattern since the product's symbolic phase");
  PetscCall(MatSeqAIJGetArrayRead(X, &x));
  PetscCall(MatSeqAIJGetArrayWrite(D, &d));
  PetscCall(PetscArraycpy(d, x, (PetscInt)ix.nz_used));
  PetscCall(MatSeqAIJRestoreArrayWrite(D, &d)); // marks the host side current: cuSPARSE uploads it at its next use
  PetscCall(MatSeqAIJRestoreArrayRead(X, &x));
  PetscCall(PetscObjectStateIncrease((PetscObject)D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The shadow of our X with X's current values on the device. Its host arrays are X's own, which
// hold those values: both sides are valid, as aijcusparse after an upload (cuSPARSE's MatMatMult
// then keeps the values its symbolic phase computed instead of computing them again).
PetscErrorCode ShadowOperand(Mat X, Mat *S)
{
  PetscFunctionBegin;
  PetscCall(GFShadowOnDevice(X, S));
  (*S)->offloadmask = PETSC_OFFLOAD_BOTH;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// dev[i] for the product's i-th matrix, at the symbolic phase.
PetscErrorCode MakeOperand(GFProduct &g, int i, Mat X)
{
  PetscFunctionBegin;
  g.src[i] = X;
  PetscCall(Classify(X, &g.kind[i]));
  for (int j = 0; j < i; ++j) // the same matrix twice (A^T A): one device operand
    if (g.src[j] == X) {
      PetscCall(PetscObjectReference((PetscObject)g.dev[j]));
      g.dev[i] = g.dev[j];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  switch (g.kind[i]) {
  case Operand::ours:
    PetscCall(ShadowOperand(X, &g.dev[i]));
    PetscCall(PetscObjectReference((PetscObject)g.dev[i]));
    break;
  case Operand::cusparse:
    PetscCall(PetscObjectReference((PetscObject)X));
    g.dev[i] = X;
    break;
  case Operand::aij:
    PetscCall(GFInternalMatrix([&] { return MatConvert(X, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &g.dev[i]); }));
    PetscCall(PetscObjectStateGet((PetscObject)X, &g.copied[i]));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: a product matrix of type %s on the device path", ((PetscObject)X)->type_name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// dev[i] with the current values of the product's i-th matrix, at a numeric phase.
PetscErrorCode RefreshOperand(GFProduct &g, int i, Mat X)
{
  PetscObjectState state;
  Mat              S;

  PetscFunctionBegin;
  // MatProductReplaceMats (MAT_REUSE_MATRIX with other matrices of the same pattern) would need
  // cuSPARSE's product structure made again on other device operands: not offered.
  PetscCheck(X == g.src[i], PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuformats: the matrices of a product computed on the GPU were replaced by other matrices since its symbolic phase; make the product again (MAT_INITIAL_MATRIX), or use -mat_gpuformats_backend host");
  for (int j = 0; j < i; ++j)
    if (g.src[j] == X) PetscFunctionReturn(PETSC_SUCCESS);
  switch (g.kind[i]) {
  case Operand::ours:
    PetscCall(ShadowOperand(X, &S));
    PetscCheck(S == g.dev[i], PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "gpuformats: a matrix of this product changed its nonzero pattern (or its CSR arrays) since the product's symbolic phase; make the product again (MAT_INITIAL_MATRIX)");
    break;
  case Operand::aij:
    PetscCall(PetscObjectStateGet((PetscObject)X, &state));
    if (state != g.copied[i]) {
      PetscCall(CopyValues(X, g.dev[i]));
      g.copied[i] = state;
    }
    break;
  default: // seqaijcusparse: cuSPARSE's numeric phase uploads what changed itself
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Runs fn(C) with cuSPARSE's product (the inner matrix's) in C's place, as MatProductSymbolic_ABC_Basic does.
template <class Fn>
PetscErrorCode WithInnerProduct(Mat C, GFProduct &g, Fn &&fn)
{
  Mat_Product *mine = C->product;

  PetscFunctionBegin;
  C->product           = g.inner->product;
  PetscErrorCode ierr  = fn();
  C->product           = mine;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ProductNumeric_GF(Mat C);

PetscErrorCode (*cusparse_axpy)(Mat, PetscScalar, Mat, MatStructure) = nullptr; // aijcusparse's MatAXPY (from the first result)

// An aijcusparse result C takes our MatAXPY. PETSc's MatAXPY(C, a, X) calls a type's method only when
// C and X share it; else MatAXPY_Basic sets X's rows into C one by one on the host. GAMG's
// prolongator smoothing adds its tentative prolongator (of our type, A's) to C = A P: 3.56 s against
// aijcusparse's 0.31 s at 200^3 (bench/results/h100x2/multigpu/). Sharing it, the sum runs on the device (GFProductResultAXPY).
PetscErrorCode ShareAXPY(Mat C)
{
  PetscFunctionBegin;
  if (!cusparse_axpy) cusparse_axpy = C->ops->axpy;
  if (C->ops->axpy == cusparse_axpy) C->ops->axpy = MatAXPY_GF;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// C's block sizes as AIJ's products set them, from the product's matrices (the device operands,
// cuSPARSE views and copies made by MatCreateSeqAIJWithArrays / MatConvert, may not carry them;
// GAMG takes a coarse operator's block size for its next level).
PetscErrorCode SetBlockSizes(Mat C)
{
  const Mat_Product *p = C->product;
  const Mat          A = p->A, B = p->B;
  PetscInt           rbs, cbs;

  PetscFunctionBegin;
  switch (p->type) {
  case MATPRODUCT_AB:
    rbs = A->rmap->bs, cbs = B->cmap->bs;
    break;
  case MATPRODUCT_AtB:
    rbs = A->cmap->bs, cbs = B->cmap->bs;
    break;
  case MATPRODUCT_ABt:
    rbs = A->rmap->bs, cbs = B->rmap->bs;
    break;
  case MATPRODUCT_PtAP:
    rbs = cbs = B->cmap->bs;
    break;
  case MATPRODUCT_RARt:
    rbs = cbs = B->rmap->bs;
    break;
  default: // ABC
    rbs = A->rmap->bs, cbs = p->C->cmap->bs;
  }
  PetscCall(MatSetBlockSizes(C, PetscAbs(rbs), PetscAbs(cbs)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ProductSymbolic_GF(Mat C)
{
  Mat_Product *p = C->product;
  Mat          X[3], parent = nullptr;
  PetscBool    device;
  const char  *prefix;
  GFProduct   *g;
  const int    n = Operands(p, X);

  PetscFunctionBegin;
  PetscCall(OnDevice(C, &device, &parent));
  PetscCheck(device, PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "gpuformats: a matrix of this product left the GPU (bound to the CPU, or another backend) between MatProductSetFromOptions() and MatProductSymbolic()");
  g             = new GFProduct;
  p->data       = g;
  p->destroy    = DestroyProduct;
  g->format     = gf(parent).opt.product_format;
  for (int i = 0; i < n; ++i) PetscCall(MakeOperand(*g, i, X[i]));

  // cuSPARSE's product of the device operands, set up by aijcusparse's own MatProductSetFromOptions
  PetscCall(MatProductCreate(g->dev[0], g->dev[1], g->dev[2], &g->inner));
  PetscCall(MatGetOptionsPrefix(C, &prefix));
  PetscCall(MatSetOptionsPrefix(g->inner, prefix));
  PetscCall(MatProductSetType(g->inner, p->type));
  if (p->alg) PetscCall(MatProductSetAlgorithm(g->inner, p->alg));
  PetscCall(MatProductSetFill(g->inner, p->fill));
  g->inner->product->api_user = p->api_user;
  PetscCall(MatProductSetFromOptions(g->inner));
  PetscCheck(g->inner->ops->productsymbolic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: no cuSPARSE product %s for the device operands", MatProductTypes[p->type]);

  if (!g->format) {
    // cuSPARSE's symbolic phase makes C itself a seqaijcusparse (and computes its values)
    PetscCall(WithInnerProduct(C, *g, [&] {
      C->ops->productsymbolic = g->inner->ops->productsymbolic;
      PetscErrorCode ierr     = C->ops->productsymbolic(C);
      g->numeric              = C->ops->productnumeric;
      return ierr;
    }));
    PetscCall(SetBlockSizes(C));
    PetscCall(ShareAXPY(C));
  } else {
    const PetscInt *ia, *ja;
    PetscInt        m;
    PetscBool       done;
    MatInfo         info;
    Mat             inner = g->inner;

    PetscCall(inner->ops->productsymbolic(inner)); // direct, as PETSc's ABC products call theirs: C's event logs it
    g->numeric = inner->ops->productnumeric;
    // C: the parent's format, with its options, on the pattern of cuSPARSE's result
    PetscCall(MatSetSizes(C, inner->rmap->n, inner->cmap->n, inner->rmap->N, inner->cmap->N));
    PetscCall(SetBlockSizes(C));
    PetscCall(MatSetType(C, seq_type_name(gf(parent).ops)));
    PetscCall(GFInherit(parent, C));
    gf(C).opt.product_format = gf(parent).opt.product_format;
    PetscCall(MatGetRowIJ(inner, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: no CSR structure of the cuSPARSE product");
    g->nz = ia[m];
    PetscCall(MatSeqAIJSetPreallocationCSR(C, ia, ja, NULL));
    PetscCall(MatRestoreRowIJ(inner, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
    PetscCall(MatGetInfo(C, MAT_LOCAL, &info));
    PetscCheck((PetscInt)info.nz_used == g->nz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: product result with %" PetscInt_FMT " nonzeros for cuSPARSE's %" PetscInt_FMT, (PetscInt)info.nz_used, g->nz);
  }
  C->ops->productsymbolic = ProductSymbolic_GF;
  C->ops->productnumeric  = ProductNumeric_GF;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ProductNumeric_GF(Mat C)
{
  Mat_Product *p = C->product;
  Mat          X[3];
  const int    n = Operands(p, X);
  GFProduct   *g = static_cast<GFProduct *>(p->data);

  PetscFunctionBegin;
  PetscCheck(g, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "gpuformats: product data empty");
  for (int i = 0; i < n; ++i) PetscCall(RefreshOperand(*g, i, X[i]));
  if (!g->format) {
    PetscCall(WithInnerProduct(C, *g, [&] {
      C->ops->productnumeric = g->numeric;
      return C->ops->productnumeric(C);
    }));
  } else {
    const PetscScalar *dv;
    PetscScalar       *hv;
    cudaStream_t       stream;

    PetscCall(g->numeric(g->inner));
    // the values into C's host AIJ, the master copy; C's layout refreshes from it at its next use
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(g->inner, &dv));
    PetscCall(MatSeqAIJGetArrayWrite(C, &hv));
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemcpyAsync(hv, dv, sizeof(PetscScalar) * g->nz, cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscLogGpuToCpu(sizeof(PetscScalar) * g->nz));
    PetscCall(MatSeqAIJRestoreArrayWrite(C, &hv));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(g->inner, &dv));
    PetscCall(PetscObjectStateIncrease((PetscObject)C)); // new values: the layout refreshes at its next use
  }
  C->ops->productnumeric = ProductNumeric_GF;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What PETSc chose before these types had their own: AIJ's when every matrix of the product has
// AIJ's (seq ours count with the one they saved); NULL otherwise.
PetscErrorCode CommonAIJ(Mat C, PetscErrorCode (**f)(Mat))
{
  Mat       X[3];
  const int n = Operands(C->product, X);

  PetscFunctionBegin;
  *f = nullptr;
  for (int i = 0; i < n; ++i) {
    PetscBool ours;
    PetscCall(MatGPUFormatsIsType(X[i], &ours));
    PetscErrorCode (*fi)(Mat) = (ours && !gf(X[i]).mpi) ? gf(X[i]).aij.productsetfromoptions : X[i]->ops->productsetfromoptions;
    if (!fi || (i && fi != *f)) {
      *f = nullptr;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    *f = fi;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The device path where it applies, else AIJ's where every matrix of the product has it: *done
// says whether either took the product.
static PetscErrorCode DeviceOrCommonAIJ(Mat C, PetscBool *done)
{
  PetscBool device;
  Mat       parent;
  PetscErrorCode (*f)(Mat);

  PetscFunctionBegin;
  PetscCall(OnDevice(C, &device, &parent));
  *done = PETSC_TRUE;
  if (device) {
    C->ops->productsymbolic = ProductSymbolic_GF;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CommonAIJ(C, &f));
  if (f) PetscCall(f(C));
  else *done = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// B->ops->productsetfromoptions of the seq types (PETSc calls it when every matrix of the product
// has it: all ours).
PetscErrorCode MatProductSetFromOptions_GF(Mat C)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(DeviceOrCommonAIJ(C, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// "MatProductSetFromOptions_anytype_C" of the seq types: PETSc asks it for a product of ours with
// matrices of other types (plain seqaij, seqaijcusparse, dense, shells...). The device path where
// it applies; else AIJ's where every matrix has it (as PETSc matched before); else what another
// matrix of the product offers for any type (as PETSc would have asked it).
PetscErrorCode MatProductSetFromOptions_GF_anytype(Mat C)
{
  PetscBool done;
  Mat       X[3];
  const int n = Operands(C->product, X);

  PetscFunctionBegin;
  PetscCall(DeviceOrCommonAIJ(C, &done));
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < n; ++i) {
    PetscErrorCode (*g)(Mat) = nullptr;
    PetscCall(PetscObjectQueryFunction((PetscObject)X[i], "MatProductSetFromOptions_anytype_C", &g));
    if (g && g != MatProductSetFromOptions_GF_anytype) {
      PetscCall(g(C));
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// Y += a X for Y an aijcusparse result of ours (ShareAXPY): aijcusparse's own MatAXPY (cuSPARSE's
// csrgeam for SUBSET_NONZERO_PATTERN, an axpy for the same pattern), with our X's cuSPARSE shadow
// in X's place. That method takes its device path only when both matrices carry it, so Y (and X, when
// it is another such result) carry it for the call.
PetscErrorCode GFProductResultAXPY(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Operand   kind;
  Mat       S = X;
  PetscBool cusparse;

  PetscFunctionBegin;
  PetscCheck(cusparse_axpy, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: MatAXPY of a product result before any result was made");
  PetscCall(Classify(X, &kind));
  if (kind == Operand::ours) PetscCall(ShadowOperand(X, &S));
  PetscCall(PetscObjectTypeCompare((PetscObject)S, MATSEQAIJCUSPARSE, &cusparse));
  auto *const y0 = Y->ops->axpy, *const s0 = S->ops->axpy;
  Y->ops->axpy = cusparse_axpy;
  if (cusparse && S->ops->axpy == MatAXPY_GF) S->ops->axpy = cusparse_axpy;
  const PetscErrorCode ierr = cusparse_axpy(Y, a, S, str);
  Y->ops->axpy = y0;
  S->ops->axpy = s0;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFInstallProducts(Mat B, PetscBool install)
{
  PetscFunctionBegin;
  if (install) {
    gf(B).aij.productsetfromoptions = B->ops->productsetfromoptions;
    B->ops->productsetfromoptions   = MatProductSetFromOptions_GF;
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", install ? MatProductSetFromOptions_GF_anytype : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
