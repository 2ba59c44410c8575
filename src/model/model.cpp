// The model: terms, prediction, the DP cost, the non-negative least-squares fit. The file format and
// the per-GPU lookup are in model_file.cpp; the device side in measure_cuda.cu.
#include "model/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuformats::model {

const FormatOps *row_cost_format()
{
  // The registry is a fixed table: found once (the strips' features and the terms' names ask often).
  static const FormatOps *const found = [] {
    int                     n;
    const FormatOps *const *all = all_formats(&n);
    for (int i = 0; i < n; ++i)
      if (all[i]->row_cost) return all[i];
    return static_cast<const FormatOps *>(nullptr);
  }();
  return found;
}

const FormatOps *offset_shape_format()
{
  static const FormatOps *const found = [] {
    for (auto list : {&all_formats, &layout_only_formats}) {
      int                     n;
      const FormatOps *const *all = (*list)(&n);
      for (int i = 0; i < n; ++i)
        if (all[i]->offset_shape) return all[i];
    }
    return static_cast<const FormatOps *>(nullptr);
  }();
  return found;
}

OffsetBlock::OffsetBlock()
{
  if (const FormatOps *f = offset_shape_format()) {
    max_diags_   = (int32_t)std::min<int64_t>(f->params[f->offset_shape->max_diags].default_value, kMaxOffsets);
    max_pad_pct_ = (int32_t)f->params[f->offset_shape->max_pad_pct].default_value;
    broken_      = false;
  }
}

void OffsetBlock::add(const Strip &s)
{
  rows_ += s.f.rows;
  nnz_ += s.f.nnz;
  if (broken_) return;
  if (s.ndiag < 0) {
    broken_ = true;
    return;
  }
  // The union of the strips' offsets, sorted: the block holds only if it is the offsets of its
  // longest strip's first longest row (the builder's rule), i.e. has that row's length.
  std::array<int32_t, 2 * kMaxOffsets> u;
  const auto end = std::set_union(union_.begin(), union_.begin() + n_, s.offsets.begin(), s.offsets.begin() + s.ndiag, u.begin());
  if (end - u.begin() > kMaxOffsets) {
    broken_ = true;
    return;
  }
  n_ = (int32_t)(end - u.begin());
  std::copy(u.begin(), end, union_.begin());
  longest_ = std::max(longest_, s.ndiag);
}

int32_t OffsetBlock::ndiag() const
{
  if (broken_ || n_ != longest_ || longest_ > max_diags_) return -1;
  if (nnz_ > 0 && ((int64_t)longest_ * rows_ - nnz_) * 100 > (int64_t)max_pad_pct_ * nnz_) return -1;
  return longest_;
}

int32_t block_diags(const Strip *strips, int count)
{
  OffsetBlock b;
  for (int k = 0; k < count; ++k) b.add(strips[k]);
  return b.ndiag();
}

const char *term_name(int k)
{
  static const char *const kCommon[] = {"launch", "rows", "nnz", "max_row", "x_sectors", "x_footprint"};
  if (k < 0 || k >= kTerms) throw Error(ErrorKind::bad_input, "model: no term " + std::to_string(k));
  if (k < 6) return kCommon[k];
  if (k == 8) return "long_nnz";
  const FormatOps *f = row_cost_format();
  return f ? (k == 6 ? f->row_cost->lanes_term : f->row_cost->warps_term) : (k == 6 ? "own_lanes" : "own_warps");
}

std::vector<std::string> term_names()
{
  std::vector<std::string> v;
  for (int k = 0; k < kTerms; ++k) v.push_back(term_name(k));
  return v;
}

bool term_applies(const std::string &candidate, int term)
{
  const FormatOps *f = row_cost_format();
  return term < 6 || term == 8 || (f && candidate == f->root);
}

int32_t strip_rows_for(int sm_count, int max_threads_per_sm)
{
  const int64_t s = (int64_t)std::max(sm_count, 1) * std::max(max_threads_per_sm, 1);
  return (int32_t)std::min<int64_t>(s, std::numeric_limits<int32_t>::max());
}

namespace {

// The per-strip terms (1..5; term 0 is per block).
void add_strip_terms(const Strip &s, int64_t, std::array<double, kTerms> &t)
{
  t[1] += s.f.rows;
  t[2] += (double)s.f.nnz;
  t[3] += s.f.max_row;
  t[4] += (double)s.x_sectors;
  t[5] += (double)s.x_footprint;
  t[6] += (double)s.row_lanes;
  t[7] += (double)s.row_warps;
  t[8] += (double)s.long_nnz;
}

} // namespace

std::array<double, kTerms> block_terms(const Strip *strips, int count, int64_t l2_bytes)
{
  std::array<double, kTerms> t{};
  t[0] = 1;
  for (int k = 0; k < count; ++k) add_strip_terms(strips[k], l2_bytes, t);
  return t;
}

// The offset layout's terms from a block's: its entry stream is its slots, ndiag x rows (padding
// included).
static std::array<double, kTerms> offset_terms(std::array<double, kTerms> t, int32_t ndiag)
{
  t[2] = (double)ndiag * t[1];
  return t;
}

bool candidate_terms(const std::string &name, const Strip *strips, int count, int64_t l2_bytes, std::array<double, kTerms> &t)
{
  t = block_terms(strips, count, l2_bytes);
  const FormatOps *f = offset_shape_format();
  if (!f || name != f->root) return true;
  const int32_t nd = block_diags(strips, count);
  if (nd < 0) return false;
  t = offset_terms(t, nd);
  return true;
}

static double dot(const std::array<double, kTerms> &c, const std::array<double, kTerms> &t)
{
  double s = 0;
  for (int k = 0; k < kTerms; ++k) s += c[k] * t[k];
  return s;
}

double predict(const Model &m, int candidate, const Strip *strips, int count)
{
  if (candidate < 0 || candidate >= (int)m.candidates.size()) throw Error(ErrorKind::bad_input, "model::predict: no candidate " + std::to_string(candidate));
  std::array<double, kTerms> t;
  if (!candidate_terms(m.candidates[candidate].name, strips, count, m.l2_bytes, t)) return std::numeric_limits<double>::infinity();
  return dot(m.candidates[candidate].coef, t);
}

int32_t sector_stride(int64_t nnz)
{
  const int64_t s = (std::max<int64_t>(nnz, 0) + kSectorSampleEntries - 1) / kSectorSampleEntries;
  return (int32_t)std::max<int64_t>(s, 1);
}

namespace {

// Strip f's ndiag and offsets (Strip): its first longest row's offsets, if every entry is on them.
int32_t strip_offsets(const CsrView &A, const select::StripFeatures &f, std::array<int32_t, kMaxOffsets> &off)
{
  off.fill(0);
  if (f.max_row > kMaxOffsets) return -1;
  int32_t r = f.first_row;
  while (A.row_length(r) < f.max_row) ++r; // the first longest (an empty strip: its first row)
  for (int32_t d = 0; d < f.max_row; ++d) off[d] = A.colidx[A.rowptr[r] + d] - r;
  for (int32_t i = f.first_row; i < f.first_row + f.rows; ++i)
    for (int32_t e = A.rowptr[i]; e < A.rowptr[i + 1]; ++e)
      if (!std::binary_search(off.begin(), off.begin() + f.max_row, A.colidx[e] - i)) {
        off.fill(0);
        return -1;
      }
  return f.max_row;
}

} // namespace

std::vector<Strip> strips_of(const CsrView &A, int32_t strip_rows, int32_t sector_stride, bool offset_view)
{
  if (sector_stride < 1) throw Error(ErrorKind::bad_input, "strips_of: the sector stride must be at least 1");
  const std::vector<select::StripFeatures> f = select::strip_features(A, strip_rows);
  std::vector<Strip>                       out(f.size());
  std::vector<int32_t>                     sec;
  for (size_t k = 0; k < f.size(); ++k) {
    out[k].f             = f[k];
    const int64_t end    = (int64_t)f[k].first_row + f[k].rows;
    const int64_t groups = ((int64_t)f[k].rows + kSectorGroupRows - 1) / kSectorGroupRows;
    int64_t       heavy_sum = 0, light_sum = 0, light = 0;
    for (int64_t g = f[k].first_row; g < end; g += kSectorGroupRows) {
      const int64_t gend  = std::min<int64_t>(g + kSectorGroupRows, end);
      const bool    heavy = heavy_group(A.rowptr[gend] - A.rowptr[g], groups, f[k].nnz);
      if (!heavy && light++ % sector_stride != 0) continue; // a light group off the sample
      sec.clear();
      for (int32_t e = A.rowptr[g]; e < A.rowptr[gend]; ++e) sec.push_back(A.colidx[e] >> 2); // 4 doubles per sector
      std::sort(sec.begin(), sec.end());
      (heavy ? heavy_sum : light_sum) += std::unique(sec.begin(), sec.end()) - sec.begin();
    }
    out[k].x_sectors = sampled_x_sectors(heavy_sum, light_sum, light, sector_stride);
    sec.clear();
    const uint32_t mask = (uint32_t)footprint_stride(sector_stride) - 1;
    for (int32_t e = A.rowptr[f[k].first_row]; e < A.rowptr[end]; ++e)
      if ((sector_hash((uint32_t)(A.colidx[e] >> 2)) & mask) == 0) sec.push_back(A.colidx[e] >> 2);
    std::sort(sec.begin(), sec.end());
    out[k].x_footprint = (int64_t)(std::unique(sec.begin(), sec.end()) - sec.begin()) * (mask + 1);
    if (long_row(f[k].max_row, f[k].rows, f[k].nnz)) // rows only; a strip without a long row needs no pass
      for (int64_t i = f[k].first_row; i < end; ++i)
        if (long_row(A.rowptr[i + 1] - A.rowptr[i], f[k].rows, f[k].nnz)) out[k].long_nnz += A.rowptr[i + 1] - A.rowptr[i];
    if (offset_view && offset_shape_format()) out[k].ndiag = strip_offsets(A, f[k], out[k].offsets);
    // The row-cost format's lanes, and its warps: per window of the strip, the rows of each class
    // share blocks; wide rows run their own.
    const FormatOps *rf = row_cost_format();
    if (!rf) continue;
    const RowCost &rc = *rf->row_cost;
    for (int64_t w = f[k].first_row; w < end; w += rc.window) {
      int64_t rows_of[kMaxRowClasses + 1] = {};
      for (int64_t i = w; i < std::min<int64_t>(w + rc.window, end); ++i) {
        const int64_t len = A.rowptr[i + 1] - A.rowptr[i];
        const int32_t c   = row_class(rc, len);
        out[k].row_lanes += row_lanes(rc, len);
        if (c > rc.nclasses) out[k].row_warps += wide_row_warps(rc, len);
        else ++rows_of[c];
      }
      for (int32_t c = 0; c <= rc.nclasses; ++c)
        if (rows_of[c]) out[k].row_warps += class_warps(rc, c, rows_of[c]);
    }
  }
  return out;
}

int find_candidate(const Model &m, const std::string &name)
{
  for (size_t i = 0; i < m.candidates.size(); ++i)
    if (m.candidates[i].name == name) return (int)i;
  return -1;
}

std::function<double(int, int, int *)> dp_cost(const Model &m, const std::vector<Strip> &strips)
{
  if (m.candidates.empty()) throw Error(ErrorKind::bad_input, "model::dp_cost: the model has no candidates");
  // prefix[k] = the per-strip terms of strips 0..k-1; a block's terms are a difference plus launch.
  std::vector<std::array<double, kTerms>> prefix(strips.size() + 1);
  for (size_t k = 0; k < strips.size(); ++k) {
    prefix[k + 1] = prefix[k];
    add_strip_terms(strips[k], m.l2_bytes, prefix[k + 1]);
  }
  std::vector<std::array<double, kTerms>> coefs;
  for (const Candidate &c : m.candidates) coefs.push_back(c.coef);
  const FormatOps *of     = offset_shape_format();
  const int        offset = of ? find_candidate(m, of->root) : -1;
  // The offset layout's ndiag of blocks i..j, for one i at a time, grown by j: O(strips) per i where
  // partition_strips asks i by i, j ascending (another order recomputes the row).
  struct Diags {
    int                  i = -1;
    std::vector<int32_t> nd; // nd[j - i]
  };
  auto diags = std::make_shared<Diags>();
  return [prefix = std::move(prefix), coefs = std::move(coefs), offset, diags, strips](int i, int j, int *fmt) {
    std::array<double, kTerms> t;
    for (int k = 0; k < kTerms; ++k) t[k] = prefix[j + 1][k] - prefix[i][k];
    t[0] = 1;
    double best = std::numeric_limits<double>::infinity();
    int    arg  = 0;
    for (size_t c = 0; c < coefs.size(); ++c) {
      double v;
      if ((int)c == offset) {
        if (diags->i != i || (int)diags->nd.size() <= j - i) {
          diags->i = i;
          diags->nd.clear();
          OffsetBlock b;
          for (int k = i; k < (int)strips.size(); ++k) {
            b.add(strips[k]);
            diags->nd.push_back(b.ndiag());
            if (b.refused_for_good()) {
              diags->nd.resize(strips.size() - i, -1);
              break;
            }
          }
        }
        const int32_t nd = diags->nd[(size_t)(j - i)];
        if (nd < 0) continue;
        v = dot(coefs[c], offset_terms(t, nd));
      } else v = dot(coefs[c], t);
      if (v < best) best = v, arg = (int)c;
    }
    if (fmt) *fmt = arg;
    return best;
  };
}

// --- fitting ---------------------------------------------------------------------------------------

namespace {

// Solves the normal equations restricted to the columns marked free (others 0), by Gaussian
// elimination with partial pivoting in long double. A free column with no weight in the data (its
// diagonal ~0) is fixed at 0.
std::array<double, kTerms> solve_free(const std::array<std::array<long double, kTerms>, kTerms> &G, const std::array<long double, kTerms> &b, std::array<bool, kTerms> &free)
{
  std::array<double, kTerms> c{};
  long double                maxdiag = 0;
  for (int k = 0; k < kTerms; ++k) maxdiag = std::max(maxdiag, G[k][k]);
  for (int k = 0; k < kTerms; ++k)
    if (free[k] && !(G[k][k] > 1e-24L * maxdiag)) free[k] = false;
  std::vector<int> idx;
  for (int k = 0; k < kTerms; ++k)
    if (free[k]) idx.push_back(k);
  const int n = (int)idx.size();
  if (!n) return c;
  // Columns are scaled to a unit diagonal first: the terms differ by 10^7 in size.
  std::vector<long double> scale(n);
  for (int a = 0; a < n; ++a) scale[a] = 1.0L / std::sqrt(G[idx[a]][idx[a]]);
  std::vector<std::vector<long double>> M(n, std::vector<long double>(n + 1));
  for (int a = 0; a < n; ++a) {
    for (int bcol = 0; bcol < n; ++bcol) M[a][bcol] = G[idx[a]][idx[bcol]] * scale[a] * scale[bcol];
    M[a][n] = b[idx[a]] * scale[a];
    M[a][a] += 1e-15L; // a whisper of ridge: collinear terms (e.g. rows and max_row on uniform rows) stay solvable
  }
  for (int col = 0; col < n; ++col) {
    int piv = col;
    for (int r = col + 1; r < n; ++r)
      if (std::fabs(M[r][col]) > std::fabs(M[piv][col])) piv = r;
    std::swap(M[col], M[piv]);
    if (M[col][col] == 0) continue;
    for (int r = 0; r < n; ++r) {
      if (r == col) continue;
      const long double f = M[r][col] / M[col][col];
      for (int k = col; k <= n; ++k) M[r][k] -= f * M[col][k];
    }
  }
  for (int a = 0; a < n; ++a) c[idx[a]] = M[a][a] != 0 ? (double)(M[a][n] / M[a][a] * scale[a]) : 0.0;
  return c;
}

} // namespace

std::array<double, kTerms> fit_nonnegative(const std::vector<std::array<double, kTerms>> &X, const std::vector<double> &y, const std::vector<double> &w)
{
  if (X.empty() || X.size() != y.size() || X.size() != w.size())
    throw Error(ErrorKind::bad_input, "model fit: " + std::to_string(X.size()) + " samples, " + std::to_string(y.size()) + " times, " + std::to_string(w.size()) + " weights (need the same, at least one)");
  std::array<std::array<long double, kTerms>, kTerms> G{};
  std::array<long double, kTerms>                     b{};
  for (size_t s = 0; s < X.size(); ++s) {
    if (!std::isfinite(y[s]) || !std::isfinite(w[s])) throw Error(ErrorKind::bad_input, "model fit: sample " + std::to_string(s) + " has a non-finite time or weight");
    for (int k = 0; k < kTerms; ++k)
      if (!std::isfinite(X[s][k])) throw Error(ErrorKind::bad_input, "model fit: sample " + std::to_string(s) + " has a non-finite term " + term_name(k));
    const long double ww = (long double)w[s] * w[s];
    for (int a = 0; a < kTerms; ++a) {
      b[a] += ww * X[s][a] * y[s];
      for (int c = 0; c < kTerms; ++c) G[a][c] += ww * X[s][a] * X[s][c];
    }
  }
  // Active set: drop the most negative coefficient, refit; at most kTerms rounds.
  std::array<bool, kTerms> free;
  free.fill(true);
  for (;;) {
    std::array<double, kTerms> c = solve_free(G, b, free);
    int worst = -1;
    for (int k = 0; k < kTerms; ++k)
      if (free[k] && c[k] < 0 && (worst < 0 || c[k] < c[worst])) worst = k;
    if (worst < 0) return c;
    free[worst] = false;
  }
}

Candidate fit_candidate(const std::string &name, const std::vector<Sample> &samples, int64_t l2_bytes)
{
  std::vector<std::array<double, kTerms>> X;
  std::vector<double>                     y, w;
  for (const Sample &s : samples) {
    if (!(s.seconds > 0)) throw Error(ErrorKind::bad_input, "model fit (" + name + "): a timing is not positive");
    std::array<double, kTerms> t;
    if (!candidate_terms(name, s.strips.data(), (int)s.strips.size(), l2_bytes, t)) continue;
    X.push_back(t);
    for (int k = 0; k < kTerms; ++k)
      if (!term_applies(name, k)) X.back()[k] = 0; // an all-zero column is fitted as 0
    y.push_back(s.seconds);
    w.push_back(1.0 / s.seconds);
  }
  if (X.empty()) throw Error(ErrorKind::bad_input, "model fit (" + name + "): its layout refuses every sample");
  Candidate c;
  c.name    = name;
  c.coef    = fit_nonnegative(X, y, w);
  c.samples = (int)X.size();
  double sq = 0;
  for (size_t k = 0; k < X.size(); ++k) {
    const double r = std::fabs(dot(c.coef, X[k]) - y[k]) / y[k];
    sq += r * r;
    c.max_rel_error = std::max(c.max_rel_error, r);
  }
  c.rms_rel_error = std::sqrt(sq / (double)X.size());
  return c;
}

} // namespace gpuformats::model
