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

// Times `prim` (made from `pd`, whose src/weights/dst descs may be format_tag::any choices).
OnednnConvTiming time_in_chosen_layouts(const dnnl::engine& eng, dnnl::stream& s, const dnnl::primitive_desc_base& pd,
                                        const dnnl::primitive& prim, OnednnProblem& problem, double min_ms, int repeat);

}  // namespace tf::bench
