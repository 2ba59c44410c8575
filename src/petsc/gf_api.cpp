// The public MatGPUFormats* API (include/gpuformats.h) with its man pages, and the functions each
// gpuformats matrix composes for it (GFComposeCommon): what a program or the Python module calls.
#include "gf_mat.hpp"

using namespace gpuformats;

namespace {

PetscErrorCode GFSync_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCall(GFSyncNow(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFGetBytes_Private(Mat A, PetscInt64 *bytes)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  PetscCall(GFSyncNow(A));
  *bytes = 0;
  if (gm.diag->fmt) *bytes += (PetscInt64)gm.diag->fmt->bytes();
  if (gm.offd->fmt) *bytes += (PetscInt64)gm.offd->fmt->bytes();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFGetLastTimes_Private(Mat A, PetscReal *build_upload, PetscReal *build_device, PetscReal *refresh_upload, PetscReal *refresh_device)
{
  PetscReal bu, bd, ru, rd;

  PetscFunctionBegin;
  PetscCall(GFLastTimes(gf(A), &bu, &bd, &ru, &rd));
  if (build_upload) *build_upload = bu;
  if (build_device) *build_device = bd;
  if (refresh_upload) *refresh_upload = ru;
  if (refresh_device) *refresh_device = rd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFSetBackend_Private(Mat A, MatGPUFormatsBackend b)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  if (b == gm.opt.backend_option) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(b != MAT_GPUFORMATS_BACKEND_CUDA || cuda_device_present(), PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "gpuformats: -mat_gpuformats_backend cuda needs a CUDA device and none is visible; use auto or host");
  PetscCall(GFHostValues(A)); // from the layout it drops
  gm.opt.backend_option = b;
  gm.diag->reset();
  gm.offd->reset();
  PetscCall(MatSetVecType(A, resolve_backend(gm) == Backend::cuda ? VECCUDA : VECSTANDARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFGetBackend_Private(Mat A, MatGPUFormatsBackend *b)
{
  PetscFunctionBegin;
  *b = gf(A).opt.backend_option;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

namespace gpuformats {

PetscErrorCode GFComposeCommon(Mat B, PetscBool compose)
{
  PetscObject o = (PetscObject)B;

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsSync_C", compose ? GFSync_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsGetBytes_C", compose ? GFGetBytes_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsGetLastTimes_C", compose ? GFGetLastTimes_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsGetStatistics_C", compose ? GFGetStatistics_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsSetBackend_C", compose ? GFSetBackend_Private : NULL));
  PetscCall(PetscObjectComposeFunction(o, "MatGPUFormatsGetBackend_C", compose ? GFGetBackend_Private : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats

/*@
  MatGPUFormatsSetBackend - chooses where the products of a gpuformats matrix run

  Logically Collective

  Input Parameters:
+ A - a gpuformats matrix (`MATEVCHYB`, `MATPJDS`, ...)
- b - `MAT_GPUFORMATS_BACKEND_AUTO` (cuda if a device is present), `MAT_GPUFORMATS_BACKEND_HOST`
      (the format's host reference kernels) or `MAT_GPUFORMATS_BACKEND_CUDA`

  Options Database Key:
. -mat_gpuformats_backend <auto,host,cuda> - the backend

  Level: intermediate

  Note:
  On the cuda backend, products with host vectors (and matrices bound to the CPU) run PETSc's AIJ product.

.seealso: `MatGPUFormatsGetBackend()`, `MatBindToCPU()`
@*/
PetscErrorCode MatGPUFormatsSetBackend(Mat A, MatGPUFormatsBackend b)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGPUFormatsSetBackend_C", (Mat, MatGPUFormatsBackend), (A, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsGetBackend - the backend option of a gpuformats matrix

  Not Collective

  Input Parameter:
. A - a gpuformats matrix

  Output Parameter:
. b - the backend option

  Level: intermediate

.seealso: `MatGPUFormatsSetBackend()`
@*/
PetscErrorCode MatGPUFormatsGetBackend(Mat A, MatGPUFormatsBackend *b)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGPUFormatsGetBackend_C", (Mat, MatGPUFormatsBackend *), (A, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsSync - brings the format up to date with the host AIJ data now (a rebuild after a
  nonzero-pattern change, a values-only refresh otherwise), as the next product would

  Collective

  Input Parameter:
. A - a gpuformats matrix

  Level: advanced

.seealso: `MatGPUFormatsGetBytes()`
@*/
PetscErrorCode MatGPUFormatsSync(Mat A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGPUFormatsSync_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsIsType - whether a matrix is of a gpuformats type (any format, seq or mpi)

  Not Collective

  Input Parameter:
. A - a matrix

  Output Parameter:
. flg - `PETSC_TRUE` for `MATEVCHYB`, `MATPJDS`, `MATPELLR`, `MATSURAA` and their seq/mpi types

  Level: beginner

  Note:
  The other `MatGPUFormats` functions need such a matrix; a program that may hold others asks first.

.seealso: `MATEVCHYB`, `MatGPUFormatsGetBytes()`, `MatGPUFormatsGetLastTimes()`
@*/
PetscErrorCode MatGPUFormatsIsType(Mat A, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  *flg = ((PetscObject)A)->type_name && format_of_type(((PetscObject)A)->type_name) && A->spptr ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsGetBytes - bytes one product reads from the stored format(s) on this rank

  Not Collective

  Input Parameter:
. A - a gpuformats matrix

  Output Parameter:
. bytes - values, indices and metadata of the local and off-process blocks

  Level: intermediate

.seealso: `MatGPUFormatsSync()`
@*/
PetscErrorCode MatGPUFormatsGetBytes(Mat A, PetscInt64 *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatGPUFormatsGetBytes_C", (Mat, PetscInt64 *), (A, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatGPUFormatsGetStatistics - the layout statistics that `-mat_view ::ascii_info` prints, for this
  rank, as one JSON object

  Collective

  Input Parameter:
. A - a gpuformats matrix

  Output Parameter:
. json - the statistics; the string belongs to `A` and stays valid until the next call or `MatDestroy()`

  Level: intermediate

  Notes:
  Brings the layout up to date first, as `MatGPUFormatsSync()` does (hence collective for the mpi
  types). The object holds `type`, `backend` (the option: auto, host or cuda), `local` (the local
  block) and, for the mpi types, `off_process` and `halo` (`path`, `why`). A block holds `built`,
  `builds`, `refreshes`, `edits`, `products`, `to_host` (copies of edited values back to the host
  AIJ) and, once built, `layout`, `format`, `backend`, `rows`, `cols`, `nonzeros`, `stored_slots`,
  `bytes` (read per product), `csr_bytes`, `map_bytes`, `last_build` and `last_refresh` (`upload_s`,
  `device_s`, or null where not measured), `transposed_bytes` where a transposed layout exists,
  `transposed_products` (those run on it) and `symmetric_transposes` (transposed products run as the
  product, where the layout's own check found the values symmetric),
  and `layout_stats`: the format's own statistics as strings.

.seealso: `MatGPUFormatsGetBytes()`, `MatGPUFormatsGetLastTimes()`, `MatView()`
@*/
PetscErrorCode MatGPUFormatsGetStatistics(Mat A, const char **json)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(json, 2);
  PetscUseMethod(A, "MatGPUFormatsGetStatistics_C", (Mat, const char **), (A, json));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsGetLastTimes - device-side times of the last conversion (build of the format) and of
  the last values-only refresh of a gpuformats matrix on this rank, each split into the upload of
  the host data and the device work after it

  Not Collective

  Input Parameter:
. A - a gpuformats matrix (`MATEVCHYB`, `MATPJDS`, ...)

  Output Parameters:
+ build_upload   - seconds the last build spent copying the host CSR block(s) to the device
. build_device   - seconds the stream then worked until the layout was complete
. refresh_upload - seconds the last values-only refresh spent copying the host values to the device
- refresh_device - seconds of its scatter into the layout through the slot map

  Level: advanced

  Notes:
  Any output may be `NULL`. A time is -1 where it was not measured: on the host backend, before
  the first build or refresh, or after the format was dropped (a failure, a backend or option
  change). A build forgets the previous refresh.

  The times come from CUDA events recorded on the stream the work ran on, so measuring costs no
  host synchronisation; this call waits until the timed work has finished on the device. The
  device part spans everything the stream did after the upload, host work the builder interleaves
  (allocations, reading back sizes) included: an upper bound on the kernels' time. The upload is
  from the AIJ arrays in host memory, staged through pinned buffers by `-mat_gpuformats_upload_threads`
  host threads (1: a pageable `cudaMemcpyAsync`).

  For the mpi types (`MATMPIEVCHYB`, ...) each time is the SUM over this rank's local and
  off-process blocks that took part in the last build (refresh): the two run one after the other
  on the same stream. Ranks differ; reduce over them as needed (the benchmark takes the maximum).

.seealso: `MatGPUFormatsSync()`, `MatConvert()`, `MatView()` with `-mat_view ::ascii_info`
@*/
/*@
  MatGPUFormatsSetHalo - how an mpi gpuformats matrix's products gather the ghost values of x

  Logically Collective

  Input Parameters:
+ A    - a gpuformats matrix
- halo - `MAT_GPUFORMATS_HALO_AUTO` (default: on the GPU ipc where every rank is on one node whose GPUs are peers, else nccl for large halos where NCCL serves every rank, else mpi; vecscatter on the host backend),
         `MAT_GPUFORMATS_HALO_NCCL`, `MAT_GPUFORMATS_HALO_MPI`, `MAT_GPUFORMATS_HALO_VECSCATTER` or `MAT_GPUFORMATS_HALO_IPC`

  Options Database Keys:
+ -mat_gpuformats_halo <auto,nccl,mpi,vecscatter,ipc> - the same, read by `MatSetFromOptions()`
- -mat_gpuformats_halo_node_ranks <n> - ipc: ranks per node, consecutive (default 0: the ranks that share memory)

  Level: intermediate

  Notes:
  The choice takes effect at the next product, collectively: NCCL asked for where it cannot serve
  every rank (the host backend, two ranks on one GPU, no NCCL library) is an error there, and so is
  IPC where it cannot (the host backend, GPUs of one node without peer access). IPC moves the ghost
  values between the GPUs of a node with copy engines, ordered by flags in device memory; peers on
  other nodes take MPI in the same product. A
  matrix ignores it. `-mat_view ::ascii_info` says which exchange runs and why.

.seealso: `MatGPUFormatsHalo`, `MatGPUFormatsGetHaloTimes()`, `MATEVCHYB`
@*/
PetscErrorCode MatGPUFormatsSetHalo(Mat A, MatGPUFormatsHalo halo)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, halo, 2);
  PetscCall(MatGPUFormatsIsType(A, &ours));
  PetscCheck(ours, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatGPUFormatsSetHalo: matrix type %s is not a gpuformats type (e.g. %s, %s)", ((PetscObject)A)->type_name ? ((PetscObject)A)->type_name : "(not set)", MATEVCHYB, MATPJDS);
  PetscCheck(halo >= MAT_GPUFORMATS_HALO_AUTO && halo <= MAT_GPUFORMATS_HALO_IPC, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "MatGPUFormatsSetHalo: unknown halo %d", (int)halo);
  gpuformats::GFSetHalo(gpuformats::gf(A), halo, gpuformats::gf(A).opt.halo_measure);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatsGetHaloTimes - which halo exchange an mpi gpuformats matrix's products use on this
  rank, and the times measured with `-mat_gpuformats_halo_measure`

  Not Collective

  Input Parameter:
. A - a gpuformats matrix

  Output Parameters:
+ used     - the exchange in use (`MAT_GPUFORMATS_HALO_VECSCATTER` for a seq matrix, one rank, or before the first product)
. products - products measured on this rank (0 without `-mat_gpuformats_halo_measure`, or with the vecscatter exchange)
. halo     - seconds, summed over them, from the product's start to the ghosts' arrival (pack, exchange, unpack)
. local    - seconds, summed, from the product's start to the end of the local block's product
- exposed  - seconds, summed, that the product's stream waited for the ghosts after its local product

  Level: advanced

  Notes:
  Any output may be `NULL`. The fraction of the halo hidden behind the local product is
  1 - exposed / halo. Measuring records 4 CUDA events per product and waits, at the next product,
  for the previous one to finish: use it to study overlap, not to time solves.

.seealso: `MatGPUFormatsHalo`, `MATEVCHYB`, `MatView()` with `-mat_view ::ascii_info`
@*/
PetscErrorCode MatGPUFormatsGetHaloTimes(Mat A, MatGPUFormatsHalo *used, PetscInt *products, PetscReal *halo, PetscReal *local, PetscReal *exposed)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatsIsType(A, &ours));
  PetscCheck(ours, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatGPUFormatsGetHaloTimes: matrix type %s is not a gpuformats type (e.g. %s, %s)", ((PetscObject)A)->type_name ? ((PetscObject)A)->type_name : "(not set)", MATEVCHYB, MATPJDS);
  if (gpuformats::gf(A).mpi) PetscCall(gpuformats::GFMPIHaloTimes(A, used, products, halo, local, exposed));
  else {
    if (used) *used = MAT_GPUFORMATS_HALO_VECSCATTER;
    if (products) *products = 0;
    if (halo) *halo = 0;
    if (local) *local = 0;
    if (exposed) *exposed = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatsGetLastTimes(Mat A, PetscReal *build_upload, PetscReal *build_device, PetscReal *refresh_upload, PetscReal *refresh_device)
{
  PetscErrorCode (*f)(Mat, PetscReal *, PetscReal *, PetscReal *, PetscReal *) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatGPUFormatsGetLastTimes_C", &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatGPUFormatsGetLastTimes: matrix type %s is not a gpuformats type (e.g. %s, %s)", ((PetscObject)A)->type_name ? ((PetscObject)A)->type_name : "(not set)", MATEVCHYB, MATPJDS);
  PetscCall((*f)(A, build_upload, build_device, refresh_upload, refresh_device));
  PetscFunctionReturn(PETSC_SUCCESS);
}
