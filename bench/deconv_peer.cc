#include "bench/deconv_peer.h"

#include <stdexcept>

#include <oneapi/dnnl/dnnl.hpp>

#include "bench/onednn_flow.h"

namespace tf::bench {

OnednnConvTiming time_onednn_deconv2d(const ops::Conv2dTransposeShape& sh, int threads, double min_ms, int repeat) {
  using namespace dnnl;
  using tag = memory::format_tag;
  const engine eng = onednn_cpu_engine(threads);
  stream s(eng);
  const OnednnConv2dDims dims = onednn_conv2d_dims(sh, sh.group);
  // ONNX's weight [c, k/group, r, s] is oneDNN's iohw (giohw).
  OnednnProblem problem = plain_conv2d_problem(dims, dims.grouped ? tag::giohw : tag::iohw);
  deconvolution_forward::primitive_desc pd;
  try {
    deconvolution_forward::desc desc(
        prop_kind::forward_inference, algorithm::deconvolution_direct, any_layout(dims.src), any_layout(dims.weight),
        any_layout(dims.dst), {sh.stride_h, sh.stride_w}, {sh.dilation_h - 1, sh.dilation_w - 1},
        {sh.pad_top, sh.pad_left}, {sh.pad_bottom - sh.output_padding_h, sh.pad_right - sh.output_padding_w});
    pd = deconvolution_forward::primitive_desc(desc, eng);
  } catch (const dnnl::error& e) {
    throw std::runtime_error("oneDNN refuses conv2d_transpose " + sh.named() + ": " + e.what());
  }
  problem.reference = [&](std::vector<float>* expected, std::vector<float>* tolerance) {
    ops::conv2d_transpose_reference(sh, problem.src.data(), problem.weight.data(), nullptr, expected, tolerance);
  };
  return time_in_chosen_layouts(eng, s, pd, deconvolution_forward(pd), problem, min_ms, repeat);
}

}  // namespace tf::bench
