// Conv2d extents: the named form a user types, its positional form, the checks, the reference.
#include <gtest/gtest.h>

#include <functional>

#include "compiler/error.h"
#include "compiler/ops/conv2d_shape.h"
#include "compiler/ops/operator.h"

namespace tf::ops {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST(Conv2dShape, NamedExtentsTakeDefaultsAndRoundTrip) {
  const Conv2dShape s =
      Conv2dShape::from_named({{"c", 64}, {"h", 56}, {"w", 56}, {"k", 64}, {"r", 3}, {"s", 3}, {"pad", 1}});
  EXPECT_EQ(s.n, 1);
  EXPECT_EQ(s.stride, 1);
  EXPECT_EQ(s.pad_bottom, 1);
  EXPECT_EQ(s.oh(), 56);
  EXPECT_EQ(s.named(), "n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1");
  EXPECT_EQ(Conv2dShape::from_vector(s.to_vector()).named(), s.named());
  const Conv2dShape a = Conv2dShape::from_named({{"n", 3},
                                                 {"c", 8},
                                                 {"h", 9},
                                                 {"w", 7},
                                                 {"k", 16},
                                                 {"r", 3},
                                                 {"s", 2},
                                                 {"stride", 2},
                                                 {"pad", 1},
                                                 {"pad_right", 0},
                                                 {"groups", 4}});
  EXPECT_EQ(a.pad_right, 0);
  EXPECT_EQ(a.pad_left, 1);
  EXPECT_EQ(a.oh(), 5);  // (9 + 2 - 3) / 2 + 1
  EXPECT_EQ(a.ow(), 4);  // (7 + 1 - 2) / 2 + 1
  EXPECT_EQ(a.flops(), 2 * 3 * 16 * 5 * 4 * 2 * 3 * 2);
}

TEST(Conv2dShape, WorkloadsThatMakeNoSenseNameTheField) {
  auto check = [](std::map<std::string, int64_t> named) {
    return error_of([&] { Conv2dShape::from_named(named).check("conv2d"); });
  };
  const std::map<std::string, int64_t> ok = {{"c", 6}, {"h", 5}, {"w", 5}, {"k", 4}, {"r", 3}, {"s", 3}};
  EXPECT_EQ(check(ok), "");
  auto with = [&](const std::string& k, int64_t v) {
    auto m = ok;
    m[k] = v;
    return m;
  };
  EXPECT_NE(check(with("stride", 0)).find("stride = 0 must be positive"), std::string::npos);
  EXPECT_NE(check(with("groups", 4)).find("groups = 4 does not divide c = 6"), std::string::npos);
  EXPECT_NE(check(with("r", 7)).find("r = 7"), std::string::npos);
  EXPECT_NE(check(with("pad_top", -1)).find("pad_top = -1 must not be negative"), std::string::npos);
  EXPECT_NE(error_of([] { Conv2dShape::from_named({{"c", 1}}); }).find("h= is missing"), std::string::npos);
  EXPECT_NE(error_of([&] { Conv2dShape::from_named(with("padding", 1)); }).find("unknown extent 'padding'"),
            std::string::npos);
}

TEST(Conv2dShape, DenseShapesParseByPositionOrByName) {
  EXPECT_EQ(parse_shape("dense", "512,256,128"), (std::vector<int64_t>{512, 256, 128}));
  EXPECT_EQ(parse_shape("dense", "K=128,M=512,N=256"), (std::vector<int64_t>{512, 256, 128}));
  EXPECT_NE(error_of([] { parse_shape("dense", "M=1,N=2"); }).find("K= is missing"), std::string::npos);
  EXPECT_NE(error_of([] { parse_shape("dense", "512,x,1"); }).find("'x' is not an integer"), std::string::npos);
  EXPECT_NE(error_of([] { parse_shape("dense", "M=1,2,3"); }).find("is not NAME=VALUE"), std::string::npos);
  EXPECT_NE(error_of([] { parse_shape("dense", "M=1,M=2,K=3"); }).find("given twice"), std::string::npos);
}

// A hand-computed case: 2 groups, stride 2, padding, bias and ReLU.
TEST(Conv2dShape, ReferenceMatchesAHandComputedCase) {
  Conv2dShape s = Conv2dShape::from_named(
      {{"c", 2}, {"h", 3}, {"w", 3}, {"k", 2}, {"r", 2}, {"s", 2}, {"stride", 2}, {"pad", 1}, {"groups", 2}});
  ASSERT_EQ(s.oh(), 2);
  std::vector<float> in(18), wt(8, 1.0f), out, tol;
  for (int i = 0; i < 18; ++i) in[i] = static_cast<float>(i);
  wt[4] = -1;  // group 1's first tap
  const float bias[2] = {0.5f, -100.0f};
  Conv2dEpilogue ep;
  ep.bias = bias;
  ep.relu = true;
  conv2d_reference(s, in.data(), wt.data(), ep, &out, &tol);
  ASSERT_EQ(out.size(), 8u);
  // Channel 0, output (0,0): only input (0,0) = 0 is inside the window; + 0.5.
  EXPECT_FLOAT_EQ(out[0], 0.5f);
  // Channel 0, output (1,1): inputs (1,1),(1,2),(2,1),(2,2) = 4+5+7+8 = 24; + 0.5.
  EXPECT_FLOAT_EQ(out[3], 24.5f);
  // Channel 1 is negative everywhere after its bias: ReLU gives 0.
  for (int i = 4; i < 8; ++i) EXPECT_EQ(out[i], 0.0f);
  for (float t : tol) EXPECT_GT(t, 0.0f);
}

}  // namespace
}  // namespace tf::ops
