#include "bench/deconv_peer.h"

#include <omp.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include <oneapi/dnnl/dnnl.hpp>

namespace tf::bench {
namespace {

std::vector<float> random_floats(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace

OnednnConvTiming time_onednn_deconv2d(const ops::Conv2dTransposeShape& sh, int threads, double min_ms, int repeat) {
  using namespace dnnl;
  using dt = memory::data_type;
  using tag = memory::format_tag;
  omp_set_num_threads(threads);
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const bool grouped = sh.group > 1;
  const memory::dims src_dims = {sh.n, sh.c, sh.h, sh.w};
  const memory::dims weight_dims = grouped ? memory::dims{sh.group, sh.k_per_group(), sh.c_per_group(), sh.r, sh.s}
                                           : memory::dims{sh.k, sh.c, sh.r, sh.s};
  const memory::dims dst_dims = {sh.n, sh.k, sh.oh(), sh.ow()};
  const memory::desc user_src_md(src_dims, dt::f32, tag::nchw), user_weight_md(weight_dims, dt::f32, grouped ? tag::giohw : tag::iohw);
  deconvolution_forward::primitive_desc pd;
  try {
    deconvolution_forward::desc desc(prop_kind::forward_inference, algorithm::deconvolution_direct,
                                     memory::desc(src_dims, dt::f32, tag::any), memory::desc(weight_dims, dt::f32, tag::any),
                                     memory::desc(dst_dims, dt::f32, tag::any), {sh.stride_h, sh.stride_w},
                                     {sh.dilation_h - 1, sh.dilation_w - 1}, {sh.pad_top, sh.pad_left},
                                     {sh.pad_bottom - sh.output_padding_h, sh.pad_right - sh.output_padding_w});
    pd = deconvolution_forward::primitive_desc(desc, eng);
  } catch (const dnnl::error& e) {
    throw std::runtime_error("oneDNN refuses conv2d_transpose " + sh.named() + ": " + e.what());
  }
  auto src_data = random_floats(sh.n * sh.c * sh.h * sh.w, 1);
  auto weight_data = random_floats(sh.c * sh.k_per_group() * sh.r * sh.s, 2);
  memory user_src(user_src_md, eng, src_data.data()), user_weight(user_weight_md, eng, weight_data.data());
  memory src(pd.src_desc(), eng), weight(pd.weights_desc(), eng), dst(pd.dst_desc(), eng);
  reorder(user_src, src).execute(s, user_src, src);
  reorder(user_weight, weight).execute(s, user_weight, weight);
  s.wait();
  deconvolution_forward deconv(pd);
  OnednnConvTiming out;
  out.impl = pd.impl_info_str();
  out.seconds = time_calls([&] {
    deconv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weight}, {DNNL_ARG_DST, dst}});
    s.wait();
  }, min_ms, repeat);

  std::vector<float> result(static_cast<size_t>(sh.n * sh.k * sh.oh() * sh.ow())), expected, tolerance;
  memory user_dst(memory::desc(dst_dims, dt::f32, tag::nchw), eng, result.data());
  reorder(dst, user_dst).execute(s, dst, user_dst);
  s.wait();
  ops::conv2d_transpose_reference(sh, src_data.data(), weight_data.data(), nullptr, &expected, &tolerance);
  for (size_t i = 0; i < result.size(); ++i) {
    if (!(std::fabs(result[i] - expected[i]) <= tolerance[i])) ++out.mismatches;
  }
  return out;
}

}  // namespace tf::bench
