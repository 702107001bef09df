// Elementwise kernels against the same function as a loop of std:: calls (float, compiled with the
// project's flags: libm's scalar functions unless GCC vectorizes them): elements per second, one
// thread, on an L2-sized and a memory-sized array. A kernel that vectorizes its transcendental
// beats the libm loop by about the vector width; one that called libm per element would not.
//
//   elementwise_bench [n]     (default 65536; elements per input)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/kernel_runner.h"
#include "compiler/ops/elementwise.h"
#include "runtime/thread_pool.h"
#include "support/args.h"

namespace {

using namespace tf;

// The std:: equivalents, as plain functions a template loop inlines (no call per element but the
// libm one).
float f_exp(float a, float) { return std::exp(a); }
float f_log(float a, float) { return std::log(a); }
float f_sin(float a, float) { return std::sin(a); }
float f_cos(float a, float) { return std::cos(a); }
float f_tan(float a, float) { return std::tan(a); }
float f_atan(float a, float) { return std::atan(a); }
float f_asin(float a, float) { return std::asin(a); }
float f_sinh(float a, float) { return std::sinh(a); }
float f_asinh(float a, float) { return std::asinh(a); }
float f_softplus(float a, float) { return std::max(a, 0.0f) + std::log1p(std::exp(-std::fabs(a))); }
float f_expm1(float a, float) { return std::expm1(a); }
float f_round(float a, float) { return std::nearbyint(a); }
float f_pow(float a, float b) { return std::pow(a, b); }
float f_fmod(float a, float b) { return std::fmod(a, b); }
float f_mod(float a, float b) {
  const float r = std::fmod(a, b);
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}
float f_leaky(float a, float) { return a > 0 ? a : a * 0.01f; }

using Loop = void (*)(const float*, const float*, float*, int64_t);

template <float (*F)(float, float)>
void loop(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = F(a[i], b[i]);
}

struct Case {
  const char* text;
  Loop std_loop;
};

// Seconds per call of `f`: enough calls to last 10 ms per timing, the fastest of `repeat` timings
// (the machine may be shared: the fastest is the one least disturbed).
double seconds_per_call(const std::function<void()>& f, int repeat = 7) {
  using clock = std::chrono::steady_clock;
  f();
  int64_t number = 1;
  for (;;) {
    const auto t0 = clock::now();
    for (int64_t i = 0; i < number; ++i) f();
    if (std::chrono::duration<double>(clock::now() - t0).count() > 0.01) break;
    number *= 2;
  }
  double best = INFINITY;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = clock::now();
    for (int64_t i = 0; i < number; ++i) f();
    best = std::min(best, std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(number));
  }
  return best;
}

// The default config with the thread pool off.
space::Config single_thread_config(const compiler::Task& task) {
  const space::Config def = task.space().default_config();
  for (int64_t i = 0; i < task.space().size(); ++i) {
    const space::Config c = task.space().at(i);
    if (!c.get_bool("parallel") && c.get_int("vectors") == def.get_int("vectors")) return c;
  }
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 65536;
  auto app = make_app("elementwise_bench",
                      "Elementwise kernels against loops of std:: calls: elements per second, one thread.");
  app->add_option("n", n, "elements per input")->type_name("N")->check(CLI::Range(int64_t{1}, int64_t{1} << 26));
  if (auto code = parse_args(*app, argc, argv)) return *code;
  runtime::set_num_threads(1);
  const Case cases[] = {
      {"exp(x0)", loop<f_exp>},     {"log(x0)", loop<f_log>},
      {"sin(x0)", loop<f_sin>},     {"cos(x0)", loop<f_cos>},
      {"tan(x0)", loop<f_tan>},     {"atan(x0)", loop<f_atan>},
      {"asin(x0)", loop<f_asin>},   {"sinh(x0)", loop<f_sinh>},
      {"asinh(x0)", loop<f_asinh>}, {"softplus(x0)", loop<f_softplus>},
      {"expm1(x0)", loop<f_expm1>}, {"round(x0)", loop<f_round>},
      {"pow(x0,x1)", loop<f_pow>},  {"fmod(x0,x1)", loop<f_fmod>},
      {"mod(x0,x1)", loop<f_mod>},  {"where(gt(x0,0),x0,mul(x0,0.01))", loop<f_leaky>},
  };
  std::printf("%-34s %12s %12s %8s   (n = %lld, 1 thread, %s)\n", "expression", "kernel el/s", "std:: el/s", "ratio",
              static_cast<long long>(n), codegen::host_target().str().c_str());
  for (const auto& c : cases) {
    auto e = ops::parse_elementwise(c.text);
    auto op = std::make_shared<ops::ElementwiseOperator>(e, 1);
    const std::vector<int64_t> shape(static_cast<size_t>(e->num_inputs()), n);
    compiler::Task task(op, shape, codegen::host_target());
    auto kernel = task.build_jit(single_thread_config(task));
    std::vector<compiler::HostTensor> tensors;
    std::vector<TFBuffer> args;
    for (size_t i = 0; i <= shape.size(); ++i) tensors.emplace_back(std::vector<int64_t>{n});
    for (size_t i = 0; i < shape.size(); ++i) {
      for (int64_t j = 0; j < n; ++j)
        tensors[i].data()[j] =
            i == 0 ? 0.001f + static_cast<float>(j % 1000) / 1000.0f : 0.5f + static_cast<float>(j % 7);
    }
    for (const auto& t : tensors) args.push_back(t.buffer());
    const TFKernelFn fn = kernel->entry();
    const double kernel_s = seconds_per_call([&] { fn(args.data(), static_cast<int32_t>(args.size())); });
    // The same inputs, in (0, 1] and [0.5, 6.5]: inside every function's domain.
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      a[i] = 0.001f + static_cast<float>(i % 1000) / 1000.0f;
      b[i] = 0.5f + static_cast<float>(i % 7);
    }
    const double std_s = seconds_per_call([&] { c.std_loop(a.data(), b.data(), out.data(), n); });
    std::printf("%-34s %12.3g %12.3g %7.1fx\n", c.text, static_cast<double>(n) / kernel_s,
                static_cast<double>(n) / std_s, std_s / kernel_s);
  }
  return 0;
}
