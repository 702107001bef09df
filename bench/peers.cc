#include "bench/peers.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>

#include <cblas.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "bench/onednn_flow.h"

namespace tf::bench {

std::vector<double> time_onednn_matmul(int64_t M, int64_t N, int64_t K, int threads, double min_ms, int repeat) {
  using namespace dnnl;
  omp_set_num_threads(threads);
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  using dt = memory::data_type;
  using tag = memory::format_tag;
  memory::desc a_md({M, K}, dt::f32, tag::ab), b_md({K, N}, dt::f32, tag::ab), c_md({M, N}, dt::f32, tag::ab);
  auto pd = matmul::primitive_desc(matmul::desc(a_md, b_md, c_md), eng);
  matmul prim(pd);
  auto a = random_floats(M * K, 1), b = random_floats(K * N, 2);
  std::vector<float> c(static_cast<size_t>(M * N));
  memory A(a_md, eng, a.data()), B(b_md, eng, b.data()), C(c_md, eng, c.data());
  return time_calls(
      [&] {
        prim.execute(s, {{DNNL_ARG_SRC, A}, {DNNL_ARG_WEIGHTS, B}, {DNNL_ARG_DST, C}});
        s.wait();
      },
      min_ms, repeat);
}

OnednnConvTiming time_onednn_conv2d(const ops::Conv2dShape& sh, int threads, double min_ms, int repeat, bool winograd) {
  using namespace dnnl;
  using tag = memory::format_tag;
  const engine eng = onednn_cpu_engine(threads);
  stream s(eng);
  const OnednnConv2dDims dims = onednn_conv2d_dims(sh, sh.groups);
  // What the framework holds: plain NCHW activations and OIHW (GOIHW) weights.
  OnednnProblem problem = plain_conv2d_problem(dims, dims.grouped ? tag::goihw : tag::oihw);
  convolution_forward::primitive_desc pd;
  try {
    // oneDNN counts dilation from 0 (1 = every other input).
    convolution_forward::desc desc(
        prop_kind::forward_inference, winograd ? algorithm::convolution_winograd : algorithm::convolution_direct,
        any_layout(dims.src), any_layout(dims.weight), any_layout(dims.dst), {sh.stride, sh.stride},
        {sh.dilation - 1, sh.dilation - 1}, {sh.pad_top, sh.pad_left}, {sh.pad_bottom, sh.pad_right});
    pd = convolution_forward::primitive_desc(desc, eng);
  } catch (const dnnl::error& e) {
    throw std::runtime_error(std::string("oneDNN refuses ") + (winograd ? "winograd " : "") + "conv2d " + sh.named() +
                             ": " + e.what());
  }
  // OIHW and GOIHW are the same bytes: k = groups * k_per_group.
  problem.reference = [&](std::vector<float>* expected, std::vector<float>* tolerance) {
    ops::conv2d_reference(sh, problem.src.data(), problem.weight.data(), {}, expected, tolerance);
  };
  return time_in_chosen_layouts(eng, s, pd, convolution_forward(pd), problem, min_ms, repeat);
}

std::vector<double> time_openblas_sgemm(int64_t M, int64_t N, int64_t K, int threads, double min_ms, int repeat) {
  openblas_set_num_threads(threads);
  auto a = random_floats(M * K, 1), b = random_floats(K * N, 2);
  std::vector<float> c(static_cast<size_t>(M * N));
  return time_calls(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(M), static_cast<int>(N),
                    static_cast<int>(K), 1.0f, a.data(), static_cast<int>(K), b.data(), static_cast<int>(N), 0.0f,
                    c.data(), static_cast<int>(N));
      },
      min_ms, repeat);
}

}  // namespace tf::bench
