// GPU suite: every format's device builder and CUDA kernels against its host builder and the CSR
// oracle (same layout array by array, products, refresh, diagonal), and the device row
// permutation against the host one. Runs only where a CUDA device is present.
#include "common/format_checks.hpp"
#include "core/device_buffer.hpp"
#include "core/row_permutation.hpp"
#include "formats/csr/csr.hpp"
#include "formats/dia/dia.hpp"
#include "model/auto.hpp"

using namespace gftest;

template <class T>
static std::vector<T> download(const T *d, size_t n)
{
  std::vector<T> h(n);
  if (n) GPUFORMATS_CUDA(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static void check_device_permutation(const NamedMatrix &m)
{
  const CsrView A = m.A.view();
  DeviceCsr     d = upload_csr(A, 0);
  // long_row 8: rows longer than 8 sort like empty rows (pJDS's long rows), set aside with them
  for (RowOrder order : {RowOrder::longest_first, RowOrder::shortest_first})
    for (int32_t window : {0, 32, 1000})
      for (int32_t long_row : {0, 8}) {
        DeviceBuffer<int32_t> perm(std::max<int32_t>(A.nrows, 1));
        sorted_row_permutation_cuda(d.rowptr.data(), d.colidx.data(), A.nrows, A.ncols, order, window, perm.data(), 0, long_row);
        check(download(perm.data(), A.nrows) == sorted_row_permutation(A, order, window, long_row), "device_permutation." + m.name + ".w" + std::to_string(window) + (long_row ? ".long8" : "") + (order == RowOrder::longest_first ? ".desc" : ".asc"));
      }
}

static void check_cuda_format_on(const FormatOps &ops, const std::vector<int64_t> &params, const std::string &tag, const NamedMatrix &m)
{
  const CsrView              A      = m.A.view();
  const std::string          name   = std::string(ops.root) + tag + ".cuda." + m.name;
  std::unique_ptr<FormatBlock> hb, db;
  try {
    hb = ops.build_host(A, params.data());
  } catch (const Error &e) {
    check_refusal(ops, e, name + ".host_build", A, params.data());
    return;
  }
  try {
    db = ops.build_cuda(A, params.data(), 0, UploadContext{});
  } catch (const Error &e) {
    check(false, name + ".build", e.what());
    return;
  }
  GPUFORMATS_CUDA(cudaDeviceSynchronize());
  check(db->backend == Backend::cuda && db->nslots == hb->nslots && db->nnz == hb->nnz, name + ".same_shape_as_host", std::to_string(db->nslots) + " vs " + std::to_string(hb->nslots));
  const std::vector<double>  dvals  = download(db->values, db->nslots);
  const std::vector<int32_t> dslots = download(db->slot_of_csr, db->nnz);
  std::string                why;
  check(check_slot_map(A, dvals, dslots, why), name + ".slots", why);
  check(dslots == std::vector<int32_t>(hb->slot_of_csr, hb->slot_of_csr + hb->nnz), name + ".same_slots_as_host");
  check(db->bytes() == hb->bytes(), name + ".same_bytes_as_host");

  const std::vector<double> x = test_vector(A.ncols, 3), y0 = test_vector(A.nrows, 4);
  DeviceBuffer<double>      dx(std::max<int32_t>(A.ncols, 1)), dy(std::max<int32_t>(A.nrows, 1));
  dx.upload(x.data(), A.ncols, 0);
  cudaStream_t streams[16] = {0};
  for (int i = 1; i <= ops.extra_streams && i < 16; ++i) GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
  const StreamSet ss{streams, 1 + ops.extra_streams};
  auto            run = [&](double alpha, double beta, const std::vector<double> &yin) {
    dy.upload(yin.data(), A.nrows, 0);
    GPUFORMATS_CUDA(cudaDeviceSynchronize());
    db->spmv(alpha, dx.data(), beta, dy.data(), ss);
    GPUFORMATS_CUDA(cudaDeviceSynchronize()); // joins the extra streams too
    return download(dy.data(), A.nrows);
  };
  for (const ProductCase &pc : product_cases()) {
    std::vector<double> want = y0;
    csr_spmv_host(A, pc.alpha, x.data(), pc.beta, want.data());
    std::vector<double> got = run(pc.alpha, pc.beta, pc.beta == 0.0 ? std::vector<double>(A.nrows, NAN) : y0);
    check(close_products(A, x, got, want, pc.alpha, pc.beta, y0, why), name + "." + pc.name, why);
  }
  check(empty_rows_ignore_x(
          A,
          [&](double alpha, const std::vector<double> &xv, double beta, const std::vector<double> &yin) {
            dx.upload(xv.data(), A.ncols, 0);
            std::vector<double> y = run(alpha, beta, yin);
            dx.upload(x.data(), A.ncols, 0);
            return y;
          },
          why),
        name + ".empty_rows_ignore_x", why);
  CsrMatrix B = m.A;
  for (size_t k = 0; k < B.values.size(); ++k) B.values[k] = 0.25 * B.values[k] + 0.001 * (double)(k % 17);
  DeviceBuffer<double> staging;
  refresh_values_cuda(*db, B.values.data(), staging, 0);
  std::vector<double> want(A.nrows);
  csr_spmv_host(B.view(), 1.0, x.data(), 0.0, want.data());
  check(close_products(B.view(), x, run(1.0, 0.0, std::vector<double>(A.nrows, NAN)), want, 1.0, 0.0, y0, why), name + ".refresh", why);

  std::vector<int32_t>  pos = diagonal_positions(B.view());
  DeviceBuffer<int32_t> dpos(std::max<size_t>(pos.size(), 1));
  dpos.upload(pos.data(), pos.size(), 0);
  gather_diagonal_cuda(*db, dpos.data(), A.nrows, dy.data(), 0);
  std::vector<double> dw(A.nrows, 0.0);
  for (int32_t i = 0; i < A.nrows; ++i)
    if (pos[i] >= 0) dw[i] = B.values[pos[i]];
  check(download(dy.data(), A.nrows) == dw, name + ".diagonal");
  DeviceBuffer<double> dcsr(std::max<size_t>(B.values.size(), 1));
  gather_csr_values_cuda(*db, dcsr.data(), 0);
  check(download(dcsr.data(), B.values.size()) == B.values, name + ".gather_csr_values");
  for (int i = 1; i <= ops.extra_streams && i < 16; ++i) cudaStreamDestroy(streams[i]);
}

// Usage: test_formats_cuda [dir] [format root or "all"] [quick|quick-nodp]
//   quick: the small edge cases only (for compute-sanitizer runs); quick-nodp: also leaves out
//   parameters that turn on dynamic parallelism (named "dynamic"), which racecheck and synccheck
//   do not support.
// The model's features from the device CSR (features_cuda.cu) equal the host's, and gpuauto's cuda
// build makes the host build's choice from them (the committed H100 model: a choice among every
// format, whatever GPU this is).
static bool same_strips(const std::vector<model::Strip> &a, const std::vector<model::Strip> &b)
{
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    const select::StripFeatures &f = a[k].f, &g = b[k].f;
    if (f.first_row != g.first_row || f.rows != g.rows || f.nnz != g.nnz || f.max_row != g.max_row || f.col_span != g.col_span || a[k].x_sectors != b[k].x_sectors || a[k].x_footprint != b[k].x_footprint ||
        a[k].row_lanes != b[k].row_lanes || a[k].row_warps != b[k].row_warps || a[k].long_nnz != b[k].long_nnz || a[k].ndiag != b[k].ndiag || a[k].offsets != b[k].offsets)
      return false;
  }
  return true;
}

static void check_device_features(const NamedMatrix &m, const std::shared_ptr<const model::Model> &h100)
{
  const CsrView A = m.A.view();
  DeviceCsr     d = upload_csr(A, 0);
  for (int32_t strip : {1000, 270336})
    for (int32_t stride : {1, 3}) {
      const std::string name = "features_device." + m.name + ".s" + std::to_string(strip) + ".k" + std::to_string(stride);
      try {
        check(same_strips(model::strips_of_device(d.rowptr.data(), d.colidx.data(), A.nrows, A.ncols, A.nnz, strip, stride, 0), model::strips_of(A, strip, stride)), name);
      } catch (const Error &e) {
        check(false, name, e.what());
      }
    }
  if (!h100) return;
  const std::string name = "gpuauto_cuda." + m.name;
  try {
    model::AutoSettings s;
    s.model = h100;
    model::AutoReport rh, rd;
    auto              hb = model::build_auto_host(A, s, &rh);
    auto              db = model::build_auto_cuda(A, s, 0, UploadContext{}, &rd);
    GPUFORMATS_CUDA(cudaDeviceSynchronize());
    check(rd.features_on_device && same_strips(rd.strips, rh.strips) && rd.predicted == rh.predicted, name + ".same_features_and_predictions");
    check(rd.chosen == rh.chosen && rd.refused.size() == rh.refused.size() && db->backend == Backend::cuda && db->nnz == A.nnz, name + ".same_choice_as_host", rd.chosen + " vs " + rh.chosen);
    const std::vector<double> x = test_vector(A.ncols, 3);
    std::vector<double>       want(A.nrows), got(A.nrows), y0(A.nrows, 0.0);
    DeviceBuffer<double>      dx(std::max<int32_t>(A.ncols, 1)), dy(std::max<int32_t>(A.nrows, 1));
    dx.upload(x.data(), A.ncols, 0);
    cudaStream_t strm[8] = {};
    db->spmv(1.0, dx.data(), 0.0, dy.data(), StreamSet{strm, 1});
    GPUFORMATS_CUDA(cudaDeviceSynchronize());
    got = download(dy.data(), A.nrows);
    csr_spmv_host(A, 1.0, x.data(), 0.0, want.data());
    std::string why;
    check(close_products(A, x, got, want, 1.0, 0.0, y0, why), name + ".product", why);
  } catch (const Error &e) {
    check(false, name, e.what());
  }
}

int main(int argc, char **argv)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("ok gpu_suite # SKIP no CUDA device\n");
    return 0;
  }
  const std::string dir   = argc > 1 ? argv[1] : "test/matrices";
  const std::string only  = argc > 2 ? argv[2] : "all";
  const std::string mode  = argc > 3 ? argv[3] : "";
  const bool        quick = mode == "quick" || mode == "quick-nodp", nodp = mode == "quick-nodp";
  int               n;
  const FormatOps *const *registered = all_formats(&n);
  std::vector<const FormatOps *> all(registered, registered + n); // and cuSPARSE CSR, gpuauto's baseline layout, and DIA
  all.push_back(&cusparse_csr_ops);
  all.push_back(&dia::ops);
  n = (int)all.size();
  std::vector<NamedMatrix> ms  = edge_case_matrices(!quick);
  if (!quick) {
    std::vector<NamedMatrix> real = real_matrices(dir);
    ms.insert(ms.end(), real.begin(), real.end());
    ms.push_back({"stencil7_64", stencil7(64)});
    // EVC-HYB's auto refuses every sort window here (test_evchyb_kernel checks that on the host).
    ms.push_back({"one_long_row_per_8192", random_rows(140000, 140000, 23, [](std::mt19937_64 &, int32_t i) { return i % 8192 == 0 ? 128 : 0; })});
    ms.push_back({"dense_row_1e6", random_rows(3000, 1000000, 21, [](std::mt19937_64 &r, int32_t i) { return i == 5 ? 1000000 : std::uniform_int_distribution<int32_t>(0, 12)(r); })});
  }
  ms.push_back({"all_rows_long", uniform_rows(64, 50000, 5000, 20000, 22)});
  if (only == "all")
    for (const NamedMatrix &m : ms) check_device_permutation(m);
  if (only == "all" || only == "gpuauto") {
    std::shared_ptr<const model::Model> h100;
    try {
      h100 = model::model_from_file("share/gpuformats/models/nvidia-h100-80gb-hbm3.json");
    } catch (const Error &e) {
      check(false, "gpuauto_cuda.model_file", e.what());
    }
    for (const NamedMatrix &m : ms) check_device_features(m, h100);
  }
  auto guarded = [&](const FormatOps &ops, const std::vector<int64_t> &params, const std::string &tag, const NamedMatrix &m) {
    try {
      check_cuda_format_on(ops, params, tag, m);
    } catch (const Error &e) {
      check(false, std::string(ops.root) + tag + ".cuda." + m.name, e.what());
    }
  };
  for (int f = 0; f < n; ++f) {
    const FormatOps &ops = *all[f];
    if (only != "all" && only != ops.root) continue;
    for (const NamedMatrix &m : ms) guarded(ops, default_params(ops), "", m);
    // Each parameter at its smallest and largest allowed value, on a few shapes; a switch
    // parameter (range 0..1, e.g. suraa's dynamic parallelism, pellr's permutation) flipped on
    // every matrix, since it selects another kernel.
    for (int p = 0; p < ops.nparams; ++p) {
      const FormatParam &fp = ops.params[p];
      if (nodp && std::string(fp.name) == "dynamic") continue;
      std::vector<int64_t> values = extra_param_values(fp);
      values.push_back(fp.min_value);
      values.push_back(fp.max_value);
      for (int64_t v : values) {
        std::vector<int64_t> params = default_params(ops);
        if (params[p] == v) continue;
        params[p]             = v;
        const bool        sw  = fp.min_value == 0 && fp.max_value == 1;
        const std::string tag = std::string("[") + fp.name + "=" + std::to_string(v) + "]";
        for (const NamedMatrix &m : ms)
          if (sw || m.name == "mixed_1_to_600" || m.name == "empty_rows_mixed" || m.name == "rect_100x7" || m.name == "stencil7_12" || m.name == "powerlaw" || m.name == "all_rows_long") guarded(ops, params, tag, m);
      }
    }
  }
  return gftest::finish();
}
