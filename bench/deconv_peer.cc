#include "bench/deconv_peer.h"

#include <omp.h>

#include <stdexcept>

#include <oneapi/dnnl/dnnl.hpp>

#include "bench/onednn_flow.h"

namespace tf::bench {

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
  const memory::desc user_src_md(src_dims, dt::f32, tag::nchw),
      user_weight_md(weight_dims, dt::f32, grouped ? tag::giohw : tag::iohw);
  deconvolution_forward::primitive_desc pd;
  try {
    deconvolution_forward::desc desc(
        prop_kind::forward_inference, algorithm::deconvolution_direct, memory::desc(src_dims, dt::f32, tag::any),
        memory::desc(weight_dims, dt::f32, tag::any), memory::desc(dst_dims, dt::f32, tag::any),
        {sh.stride_h, sh.stride_w}, {sh.dilation_h - 1, sh.dilation_w - 1}, {sh.pad_top, sh.pad_left},
        {sh.pad_bottom - sh.output_padding_h, sh.pad_right - sh.output_padding_w});
    pd = deconvolution_forward::primitive_desc(desc, eng);
  } catch (const dnnl::error& e) {
    throw std::runtime_error("oneDNN refuses conv2d_transpose " + sh.named() + ": " + e.what());
  }
  OnednnProblem problem{user_src_md,
                        user_weight_md,
                        memory::desc(dst_dims, dt::f32, tag::nchw),
                        random_floats(sh.n * sh.c * sh.h * sh.w, 1),
                        random_floats(sh.c * sh.k_per_group() * sh.r * sh.s, 2),
                        {}};
  problem.reference = [&](std::vector<float>* expected, std::vector<float>* tolerance) {
    ops::conv2d_transpose_reference(sh, problem.src.data(), problem.weight.data(), nullptr, expected, tolerance);
  };
  return time_in_chosen_layouts(eng, s, pd, deconvolution_forward(pd), problem, min_ms, repeat);
}

}  // namespace tf::bench
