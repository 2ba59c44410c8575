// Internals shared by the Matrix Market reader and the generators: a small fast random number
// generator, hashing (so every row and every value is a pure function of the seed, whatever the
// thread count), a parallel loop, and triplets -> sorted CSR. Not part of the library's interface.
#pragma once
#include "core/csr.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace gpuformats::matgen_detail {

// SplitMix64 finaliser: a bijective 64-bit mix, used to derive seeds and hashed values.
inline uint64_t mix64(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline uint64_t mix64(uint64_t a, uint64_t b) { return mix64(a ^ mix64(b)); }
inline uint64_t mix64(uint64_t a, uint64_t b, uint64_t c) { return mix64(mix64(a, b), c); }

// xoshiro256++ (Blackman & Vigna): fast, good quality, 32 bytes of state. Seeded through SplitMix64.
class Rng {
public:
  explicit Rng(uint64_t seed)
  {
    for (uint64_t &w : s_) w = seed = mix64(seed);
  }
  uint64_t next()
  {
    const uint64_t r = rotl(s_[0] + s_[3], 23) + s_[0], t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  // Uniform in [0, n) for n >= 1 (Lemire's multiply-shift; the bias, below 2^-32 for n < 2^32, is irrelevant here).
  uint64_t below(uint64_t n) { return (uint64_t)(((unsigned __int128)next() * n) >> 64); }
  // Uniform integer in [lo, hi] (lo <= hi).
  int64_t between(int64_t lo, int64_t hi) { return lo + (int64_t)below((uint64_t)(hi - lo) + 1); }
  // Uniform in [0, 1).
  double unit() { return (double)(next() >> 11) * 0x1.0p-53; }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t        s_[4];
};

// A matrix entry's value as a pure function of (seed, row, col): uniform in [-1, -0.1] U [0.1, 1]
// (kept away from 0 so no product term vanishes).
inline double hashed_value(uint64_t seed, int64_t row, int64_t col)
{
  const uint64_t h = mix64(seed, (uint64_t)row, (uint64_t)col);
  const double   u = (double)(h >> 12) * 0x1.0p-52; // [0, 1)
  const double   m = 0.1 + 0.9 * u;
  return (h & 1) ? m : -m;
}

// Worker threads for generation (hardware concurrency; GPUFORMATS_GEN_THREADS overrides).
int generator_threads();

// fn(begin, end) over [0, n) in chunks of `chunk`, on generator_threads() threads. fn must only
// write what its range owns. Exceptions from fn are rethrown (the first one) after all threads end.
void parallel_for(int64_t n, int64_t chunk, const std::function<void(int64_t, int64_t)> &fn);

// Triplets (any order, duplicates allowed) -> CSR with sorted columns, duplicates summed.
// rows/cols are 0-based and must be in range (checked). Consumes the vectors.
CsrMatrix csr_from_triplets(int32_t nrows, int32_t ncols, std::vector<int32_t> &&rows, std::vector<int32_t> &&cols, std::vector<double> &&vals);

// Throws Error(unsupported) when a matrix of `nnz` entries cannot be indexed with int32 row pointers.
void check_nnz_fits(int64_t nnz, const std::string &what);

} // namespace gpuformats::matgen_detail
