#include "runtime/peak_flops.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <vector>

#include "runtime/host_lock.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace tf::runtime {
namespace {

// Independent accumulators: enough to cover the FMA latency on every pipe (4 cycles x 2 pipes on
// current cores), few enough to stay in registers. The chain loops are unrolled by pragma: left a
// loop (GCC at -O2), the accumulators live in memory and a store-load round trip per FMA measures
// a fifth of the peak.
constexpr int kChains = 12;

// Each function does `iterations` x kChains multiply-adds of one vector width and returns the
// FLOPs done; the sum is written through `sink` so the work cannot be optimized away.
#if defined(__x86_64__)
__attribute__((target("avx512f"))) double fma_avx512(int64_t iterations, float* sink) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  float out[16];
  for (int c = 1; c < kChains; ++c) acc[0] = _mm512_add_ps(acc[0], acc[c]);
  _mm512_storeu_ps(out, acc[0]);
  *sink = out[0] + out[15];
  return 2.0 * 16 * kChains * static_cast<double>(iterations);
}

__attribute__((target("avx2,fma"))) double fma_avx2(int64_t iterations, float* sink) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  float out[8];
  for (int c = 1; c < kChains; ++c) acc[0] = _mm256_add_ps(acc[0], acc[c]);
  _mm256_storeu_ps(out, acc[0]);
  *sink = out[0] + out[7];
  return 2.0 * 8 * kChains * static_cast<double>(iterations);
}

double mul_add_sse(int64_t iterations, float* sink) {
  __m128 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm_set1_ps(static_cast<float>(c));
  const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm_add_ps(_mm_mul_ps(acc[c], a), b);
  }
  for (int c = 1; c < kChains; ++c) acc[0] = _mm_add_ps(acc[0], acc[c]);
  *sink = _mm_cvtss_f32(acc[0]);
  return 2.0 * 4 * kChains * static_cast<double>(iterations);
}

using Loop = double (*)(int64_t, float*);
Loop widest_loop() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return fma_avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return fma_avx2;
  return mul_add_sse;
}
std::vector<Loop> peak_loops() { return {widest_loop()}; }
#elif defined(__aarch64__)
// kFused: one fused multiply-add per step. Else a multiply and an add: an emulator (qemu-user)
// computes a fused multiply-add in software, ten times slower than the multiply and add kernels
// may use instead, so the faster of the two is the peak.
template <bool kFused>
double multiply_add_neon(int64_t iterations, float* sink) {
  float32x4_t acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = vdupq_n_f32(static_cast<float>(c));
  const float32x4_t a = vdupq_n_f32(0.999999f), b = vdupq_n_f32(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = kFused ? vfmaq_f32(b, acc[c], a) : vaddq_f32(vmulq_f32(acc[c], a), b);
  }
  for (int c = 1; c < kChains; ++c) acc[0] = vaddq_f32(acc[0], acc[c]);
  *sink = vaddvq_f32(acc[0]);
  return 2.0 * 4 * kChains * static_cast<double>(iterations);
}

using Loop = double (*)(int64_t, float*);
std::vector<Loop> peak_loops() { return {multiply_add_neon<true>, multiply_add_neon<false>}; }
#else
#error "tunefarm's runtime knows x86_64 and aarch64"
#endif

// Pins the calling thread to one CPU for its lifetime, then restores what it was allowed before.
class PinnedTo {
 public:
  explicit PinnedTo(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return;
    pinned_ = pthread_getaffinity_np(pthread_self(), sizeof before_, &before_) == 0;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = pinned_ && pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
  }
  ~PinnedTo() {
    if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof before_, &before_);
  }
  PinnedTo(const PinnedTo&) = delete;
  PinnedTo& operator=(const PinnedTo&) = delete;

 private:
  cpu_set_t before_{};
  bool pinned_ = false;
};

// The CPU time this thread has run, not the wall clock: on a busy host the thread is preempted
// for most of a wall-clock interval, and a peak judged by it would refuse honest timings later.
double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The best of a few runs of `loop`, each grown to ~10 ms of this thread's CPU time.
double best_gflops(Loop loop, float* sink) {
  int64_t iterations = 1024;
  double best = 0;
  for (int run = 0, kept = 0; run < 64 && kept < 4; ++run) {
    const double t0 = thread_cpu_seconds();
    const double flops = loop(iterations, sink);
    const double s = thread_cpu_seconds() - t0;
    if (s < 0.01) {
      iterations *= s > 0 ? std::clamp<int64_t>(static_cast<int64_t>(0.012 / s), 2, 64) : 64;
      continue;
    }
    best = std::max(best, flops / s * 1e-9);
    ++kept;
  }
  return best;
}

}  // namespace

double measure_peak_gflops(int cpu, const std::string& timing_lock) {
  PinnedTo pinned(cpu);
  HostLock lock(timing_lock);
  float sink = 0;
  double best = 0;
  for (Loop loop : peak_loops()) best = std::max(best, best_gflops(loop, &sink));
  // The sink is read so the loop's result is live; the value itself is meaningless.
  return sink == 12345.0f ? best * 1.0000001 : best;
}

}  // namespace tf::runtime
