// Internals of the matrix readers and generators: thread pool loop and triplets -> CSR.
#include "matgen/matgen_detail.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

namespace gpuformats::matgen_detail {

int generator_threads()
{
  if (const char *e = std::getenv("GPUFORMATS_GEN_THREADS")) {
    const int n = std::atoi(e);
    if (n > 0) return n;
  }
  const unsigned hc = std::thread::hardware_concurrency();
  return hc ? (int)std::min(hc, 256u) : 1;
}

void parallel_for(int64_t n, int64_t chunk, const std::function<void(int64_t, int64_t)> &fn)
{
  if (n <= 0) return;
  chunk                = std::max<int64_t>(chunk, 1);
  const int64_t chunks = (n + chunk - 1) / chunk;
  const int     nt     = (int)std::min<int64_t>(generator_threads(), chunks);
  if (nt <= 1) {
    for (int64_t b = 0; b < n; b += chunk) fn(b, std::min(n, b + chunk));
    return;
  }
  std::atomic<int64_t> next{0};
  std::exception_ptr   first;
  std::mutex           m;
  auto                 work = [&] {
    for (;;) {
      const int64_t c = next.fetch_add(1);
      if (c >= chunks) return;
      try {
        fn(c * chunk, std::min(n, (c + 1) * chunk));
      } catch (...) {
        std::lock_guard<std::mutex> g(m);
        if (!first) first = std::current_exception();
        next = chunks; // stop handing out work
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < nt; ++t) pool.emplace_back(work);
  work();
  for (std::thread &t : pool) t.join();
  if (first) std::rethrow_exception(first);
}

void check_nnz_fits(int64_t nnz, const std::string &what)
{
  if (nnz > INT32_MAX)
    throw Error(ErrorKind::unsupported, what + ": " + std::to_string(nnz) + " nonzeros do not fit 32-bit row pointers (at most " + std::to_string(INT32_MAX) + "); ask for a smaller size");
}

CsrMatrix csr_from_triplets(int32_t nrows, int32_t ncols, std::vector<int32_t> &&rows, std::vector<int32_t> &&cols, std::vector<double> &&vals)
{
  const int64_t n = (int64_t)rows.size();
  if ((int64_t)cols.size() != n || (int64_t)vals.size() != n) throw Error(ErrorKind::bad_input, "csr_from_triplets: rows, cols and values differ in length");
  check_nnz_fits(n, "triplets");
  // Bucket by row (counting sort), then sort each row by column and sum duplicates.
  std::vector<int64_t> start((size_t)nrows + 1, 0);
  for (int64_t k = 0; k < n; ++k) {
    const int32_t r = rows[k], c = cols[k];
    if (r < 0 || r >= nrows || c < 0 || c >= ncols)
      throw Error(ErrorKind::bad_input, "csr_from_triplets: entry (" + std::to_string(r) + ", " + std::to_string(c) + ") outside the " + std::to_string(nrows) + " x " + std::to_string(ncols) + " matrix");
    ++start[(size_t)r + 1];
  }
  for (int32_t i = 0; i < nrows; ++i) start[i + 1] += start[i];
  std::vector<int32_t> bc((size_t)n);
  std::vector<double>  bv((size_t)n);
  {
    std::vector<int64_t> pos(start.begin(), start.end() - 1);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t p = pos[rows[k]]++;
      bc[p]           = cols[k];
      bv[p]           = vals[k];
    }
  }
  std::vector<int32_t>().swap(rows);
  std::vector<int32_t>().swap(cols);
  std::vector<double>().swap(vals);

  // Per row: sort (col, value) pairs, merge duplicates in place; record the new length.
  std::vector<int32_t> len((size_t)nrows, 0);
  parallel_for(nrows, 4096, [&](int64_t b, int64_t e) {
    std::vector<std::pair<int32_t, double>> tmp;
    for (int64_t i = b; i < e; ++i) {
      const int64_t s = start[i], t = start[i + 1];
      bool          sorted = true;
      for (int64_t k = s + 1; k < t && sorted; ++k) sorted = bc[k - 1] < bc[k];
      if (!sorted) {
        tmp.resize((size_t)(t - s));
        for (int64_t k = s; k < t; ++k) tmp[k - s] = {bc[k], bv[k]};
        std::stable_sort(tmp.begin(), tmp.end(), [](const auto &a, const auto &c) { return a.first < c.first; });
        int64_t o = s;
        for (size_t k = 0; k < tmp.size(); ++k) {
          if (o > s && bc[o - 1] == tmp[k].first) bv[o - 1] += tmp[k].second;
          else {
            bc[o] = tmp[k].first;
            bv[o] = tmp[k].second;
            ++o;
          }
        }
        len[i] = (int32_t)(o - s);
      } else len[i] = (int32_t)(t - s);
    }
  });
  CsrMatrix A;
  A.nrows = nrows;
  A.ncols = ncols;
  A.rowptr.assign((size_t)nrows + 1, 0);
  for (int32_t i = 0; i < nrows; ++i) A.rowptr[i + 1] = A.rowptr[i] + len[i];
  const int64_t nnz = A.rowptr[nrows];
  if (nnz == n) { // nothing merged: keep the bucketed arrays
    A.colidx = std::move(bc);
    A.values = std::move(bv);
    return A;
  }
  A.colidx.resize((size_t)nnz);
  A.values.resize((size_t)nnz);
  parallel_for(nrows, 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      std::copy(bc.begin() + start[i], bc.begin() + start[i] + len[i], A.colidx.begin() + A.rowptr[i]);
      std::copy(bv.begin() + start[i], bv.begin() + start[i] + len[i], A.values.begin() + A.rowptr[i]);
    }
  });
  return A;
}

} // namespace gpuformats::matgen_detail
