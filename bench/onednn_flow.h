// What oneDNN's convolution-like peers share (bench/peers.cc, bench/deconv_peer.cc): inputs as a
// framework holds them, reordered once into the layouts oneDNN chose, only the primitive timed,
// and its output reordered back and checked against tunefarm's reference.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "bench/peers.h"

namespace tf::bench {

// Uniform in [-1, 1), the same values for the same seed.
std::vector<float> random_floats(int64_t n, uint64_t seed);

// The plain-layout data a primitive reads and the reference that says what it must write.
struct OnednnProblem {
  dnnl::memory::desc user_src, user_weight, user_dst;  // plain layouts (nchw, oihw / iohw ...)
  std::vector<float> src, weight;
  // The expected output in user_dst's layout and a per-element bound on its error.
  std::function<void(std::vector<float>* expected, std::vector<float>* tolerance)> reference;
};

// oneDNN's CPU engine, its OpenMP threads set to `threads` before it starts.
dnnl::engine onednn_cpu_engine(int threads);

// A 2-D convolution's or deconvolution's extents in oneDNN's terms: NCHW source and destination,
// weights [k, c, r, s] or, grouped, [groups, k/groups, c/groups, r, s] (the order of both
// primitives; the layout tag says how the bytes lie).
struct OnednnConv2dDims {
  bool grouped = false;
  dnnl::memory::dims src, weight, dst;
};
// From an ops::Conv2dShape or ops::Conv2dTransposeShape with `groups` groups.
template <typename Shape>
OnednnConv2dDims onednn_conv2d_dims(const Shape& sh, int64_t groups) {
  OnednnConv2dDims d;
  d.grouped = groups > 1;
  d.src = {sh.n, sh.c, sh.h, sh.w};
  d.weight = d.grouped ? dnnl::memory::dims{groups, sh.k_per_group(), sh.c_per_group(), sh.r, sh.s}
                       : dnnl::memory::dims{sh.k, sh.c, sh.r, sh.s};
  d.dst = {sh.n, sh.k, sh.oh(), sh.ow()};
  return d;
}
// float32 in whatever layout oneDNN chooses (format_tag::any).
dnnl::memory::desc any_layout(const dnnl::memory::dims& dims);

// What a framework holds: NCHW activations and weights laid out as `weight_tag`, random source
// (seed 1) and weights (seed 2). The reference is the caller's.
OnednnProblem plain_conv2d_problem(const OnednnConv2dDims& dims, dnnl::memory::format_tag weight_tag);

// Reorders the inputs (in plain layouts) into the layouts `pd` chose once, as a framework does when
// it loads a model and between layers, then times `prim`: the seconds per call and its output in
// pd's layout.
struct ChosenLayoutRun {
  std::vector<double> seconds;
  dnnl::memory dst;
};
ChosenLayoutRun run_in_chosen_layouts(const dnnl::engine& eng, dnnl::stream& s, const dnnl::primitive_desc_base& pd,
                                      const dnnl::primitive& prim, dnnl::memory& user_src, dnnl::memory& user_weight,
                                      double min_ms, int repeat);

// Times `prim` (made from `pd`, whose src/weights/dst descs may be format_tag::any choices).
OnednnConvTiming time_in_chosen_layouts(const dnnl::engine& eng, dnnl::stream& s, const dnnl::primitive_desc_base& pd,
                                        const dnnl::primitive& prim, OnednnProblem& problem, double min_ms, int repeat);

}  // namespace tf::bench
