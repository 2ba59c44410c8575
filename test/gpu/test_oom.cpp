// GPU suite: running out of device memory while converting gives PETSC_ERR_MEM, and the AIJ matrix
// stays usable (and converts once memory is back). Device memory is filled with plain cudaMalloc.
#include "common/check.hpp"
#include "common/test_matrices.hpp"

#include <gpuformats.h>
#include <cuda_runtime_api.h>

using gftest::check;

int main(int argc, char **argv)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("ok oom # SKIP no CUDA device\n");
    return 0;
  }
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(GPUFormatsInitializePackage());
  char types[256] = "";
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", types, sizeof(types), NULL));
  gpuformats::CsrMatrix G = gftest::stencil7(64);
  for (char *t = strtok(types, ","); t; t = strtok(NULL, ",")) {
    Mat A, B = NULL;
    Vec x, y, y2;
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, G.nrows, G.ncols, G.rowptr.data(), G.colidx.data(), G.values.data(), &A));
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecDuplicate(y, &y2));
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(A, x, y));
    // Fill the device, leaving a few MB so the CUDA context itself keeps working.
    std::vector<void *> hog;
    size_t              chunk = size_t(1) << 30;
    while (chunk >= (size_t(1) << 20)) {
      void *p = nullptr;
      if (cudaMalloc(&p, chunk) == cudaSuccess) hog.push_back(p);
      else {
        cudaGetLastError();
        chunk /= 2;
      }
    }
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    PetscErrorCode ierr = MatConvert(A, t, MAT_INITIAL_MATRIX, &B);
    PetscCall(PetscPopErrorHandler());
    check(ierr == PETSC_ERR_MEM, std::string(t) + ".oom_is_petsc_err_mem", "got error " + std::to_string((int)ierr));
    for (void *p : hog) cudaFree(p);
    PetscCall(MatMult(A, x, y2));
    PetscReal d;
    PetscCall(VecAXPY(y2, -1.0, y));
    PetscCall(VecNorm(y2, NORM_INFINITY, &d));
    check(d == 0, std::string(t) + ".aij_usable_after_oom");
    if (ierr == PETSC_SUCCESS) PetscCall(MatDestroy(&B));
    PetscCall(MatConvert(A, t, MAT_INITIAL_MATRIX, &B));
    PetscInt64 bytes;
    PetscCall(MatGPUFormatsGetBytes(B, &bytes));
    check(bytes > 0, std::string(t) + ".converts_after_oom");
    PetscCall(MatDestroy(&B));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&y2));
    PetscCall(MatDestroy(&A));
  }
  const int rc = gftest::finish();
  PetscCall(PetscFinalize());
  return rc;
}
