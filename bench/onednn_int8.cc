#include "bench/onednn_int8.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "bench/onednn_flow.h"

namespace tf::bench {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

// The zero points a calibrated layer has: neither end of the range.
constexpr int32_t kSourceZeroPoint = 120, kDestinationZeroPoint = 100;

template <typename T>
std::vector<T> random_bytes(int64_t n, uint64_t seed, int lo, int hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

int64_t elements_of(const memory::dims& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<int64_t>());
}

// Per output channel: about 40 steps per typical accumulator, as a calibrated layer's.
dnnl::primitive_attr requantizing(int64_t channels, int64_t reduction, int channel_mask) {
  dnnl::primitive_attr attr;
  const float typical = 128.0f * 74.0f * std::sqrt(static_cast<float>(reduction));
  std::vector<float> scales(static_cast<size_t>(channels));
  for (size_t i = 0; i < scales.size(); ++i) scales[i] = (20.0f + static_cast<float>(i % 40)) / typical;
  attr.set_output_scales(channel_mask, scales);
  attr.set_zero_points(DNNL_ARG_SRC, 0, {kSourceZeroPoint});
  attr.set_zero_points(DNNL_ARG_DST, 0, {kDestinationZeroPoint});
  return attr;
}

// Random plain inputs, then the primitive timed in its chosen layouts.
OnednnInt8Timing run(const dnnl::engine& eng, const dnnl::primitive_desc_base& pd, const dnnl::primitive& prim,
                     const memory::desc& user_src, const memory::desc& user_weight, double min_ms, int repeat) {
  dnnl::stream s(eng);
  auto src_bytes = random_bytes<uint8_t>(elements_of(user_src.dims()), 1, 0, 255);
  auto weight_bytes = random_bytes<int8_t>(elements_of(user_weight.dims()), 2, -127, 127);
  memory plain_src(user_src, eng, src_bytes.data()), plain_weight(user_weight, eng, weight_bytes.data());
  return {run_in_chosen_layouts(eng, s, pd, prim, plain_src, plain_weight, min_ms, repeat).seconds, pd.impl_info_str()};
}

}  // namespace

OnednnInt8Timing time_onednn_int8_matmul(int64_t M, int64_t N, int64_t K, int threads, double min_ms, int repeat) {
  const dnnl::engine eng = onednn_cpu_engine(threads);
  const memory::desc a({M, K}, dt::u8, tag::ab), b_plain({K, N}, dt::s8, tag::ab);
  const memory::desc b({K, N}, dt::s8, tag::any), c({M, N}, dt::u8, tag::ab);
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), requantizing(N, K, 1 << 1), eng);
    return run(eng, pd, dnnl::matmul(pd), a, b_plain, min_ms, repeat);
  } catch (const dnnl::error& e) {
    throw std::runtime_error("oneDNN refuses the int8 matmul " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                             std::to_string(K) + ": " + e.what());
  }
}

OnednnInt8Timing time_onednn_int8_conv2d(const ops::Conv2dShape& sh, int threads, double min_ms, int repeat) {
  const dnnl::engine eng = onednn_cpu_engine(threads);
  const OnednnConv2dDims dims = onednn_conv2d_dims(sh, sh.groups);
  const memory::desc src_plain(dims.src, dt::u8, tag::nchw),
      weight_plain(dims.weight, dt::s8, dims.grouped ? tag::goihw : tag::oihw);
  try {
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        memory::desc(dims.src, dt::u8, tag::any), memory::desc(dims.weight, dt::s8, tag::any),
        memory::desc(dims.dst, dt::u8, tag::any), {sh.stride, sh.stride}, {sh.dilation - 1, sh.dilation - 1},
        {sh.pad_top, sh.pad_left}, {sh.pad_bottom, sh.pad_right});
    dnnl::convolution_forward::primitive_desc pd(desc, requantizing(sh.k, sh.c_per_group() * sh.r * sh.s, 1 << 1), eng);
    return run(eng, pd, dnnl::convolution_forward(pd), src_plain, weight_plain, min_ms, repeat);
  } catch (const dnnl::error& e) {
    throw std::runtime_error("oneDNN refuses the int8 conv2d " + sh.named() + ": " + e.what());
  }
}

}  // namespace tf::bench
