#include "bench/onednn_flow.h"

#include <omp.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <random>

namespace tf::bench {

std::vector<float> random_floats(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

dnnl::engine onednn_cpu_engine(int threads) {
  omp_set_num_threads(threads);
  return dnnl::engine(dnnl::engine::kind::cpu, 0);
}

dnnl::memory::desc any_layout(const dnnl::memory::dims& dims) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::any);
}

namespace {

int64_t element_count(const dnnl::memory::dims& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<int64_t>());
}

}  // namespace

OnednnProblem plain_conv2d_problem(const OnednnConv2dDims& dims, dnnl::memory::format_tag weight_tag) {
  using dnnl::memory;
  return OnednnProblem{memory::desc(dims.src, memory::data_type::f32, memory::format_tag::nchw),
                       memory::desc(dims.weight, memory::data_type::f32, weight_tag),
                       memory::desc(dims.dst, memory::data_type::f32, memory::format_tag::nchw),
                       random_floats(element_count(dims.src), 1),
                       random_floats(element_count(dims.weight), 2),
                       {}};
}

ChosenLayoutRun run_in_chosen_layouts(const dnnl::engine& eng, dnnl::stream& s, const dnnl::primitive_desc_base& pd,
                                      const dnnl::primitive& prim, dnnl::memory& user_src, dnnl::memory& user_weight,
                                      double min_ms, int repeat) {
  using dnnl::memory;
  memory src(pd.src_desc(), eng), weight(pd.weights_desc(), eng);
  ChosenLayoutRun out{{}, memory(pd.dst_desc(), eng)};
  dnnl::reorder(user_src, src).execute(s, user_src, src);
  dnnl::reorder(user_weight, weight).execute(s, user_weight, weight);
  s.wait();
  out.seconds = time_calls(
      [&] {
        prim.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weight}, {DNNL_ARG_DST, out.dst}});
        s.wait();
      },
      min_ms, repeat);
  return out;
}

OnednnConvTiming time_in_chosen_layouts(const dnnl::engine& eng, dnnl::stream& s, const dnnl::primitive_desc_base& pd,
                                        const dnnl::primitive& prim, OnednnProblem& problem, double min_ms,
                                        int repeat) {
  using dnnl::memory;
  memory user_src(problem.user_src, eng, problem.src.data()),
      user_weight(problem.user_weight, eng, problem.weight.data());
  ChosenLayoutRun run = run_in_chosen_layouts(eng, s, pd, prim, user_src, user_weight, min_ms, repeat);
  OnednnConvTiming out;
  out.impl = pd.impl_info_str();
  out.seconds = std::move(run.seconds);
  memory& dst = run.dst;

  std::vector<float> result(problem.user_dst.get_size() / sizeof(float)), expected, tolerance;
  memory user_dst(problem.user_dst, eng, result.data());
  dnnl::reorder(dst, user_dst).execute(s, dst, user_dst);
  s.wait();
  problem.reference(&expected, &tolerance);
  for (size_t i = 0; i < result.size(); ++i) {
    if (!(std::fabs(result[i] - expected[i]) <= tolerance[i])) ++out.mismatches;
  }
  return out;
}

}  // namespace tf::bench
