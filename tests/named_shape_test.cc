// A workload's shape in suites and job files: a list of extents, the text a user types
// ("n=1,c=64,...") or an object of named extents, all meaning the same positional workload; a
// shape that makes no sense is refused naming the field.
#include <gtest/gtest.h>

#include "compiler/error.h"
#include "compiler/ops/operator.h"
#include "compiler/ops/shape_json.h"
#include "proto/json_convert.h"
#include "regress/suite.h"

namespace tf {
namespace {

const std::vector<int64_t> kLayer = {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1};

std::string suite_error(const std::string& text) {
  try {
    regress::parse_suite(text, "s.json");
  } catch (const regress::SuiteError& e) {
    return e.what();
  }
  return "accepted";
}

std::string job_error(const std::string& text) {
  try {
    fleet::job_spec_from_text(text, ops::shape_from_json);
  } catch (const fleet::SpecError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(NamedShape, JsonFormsMeanTheSameWorkload) {
  EXPECT_EQ(ops::shape_from_json("conv2d", parse_json("[1,64,56,56,64,3,3,1,1,1,1,1,1,1]"), "shape"), kLayer);
  EXPECT_EQ(ops::shape_from_json("conv2d", Json("n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1"), "shape"), kLayer);
  EXPECT_EQ(ops::shape_from_json("conv2d", parse_json(R"({"c":64,"h":56,"w":56,"k":64,"r":3,"s":3,"pad":1})"), "shape"),
            kLayer);
  EXPECT_EQ(ops::shape_from_json("dense", parse_json(R"({"M":8,"N":16,"K":32})"), "shape"),
            (std::vector<int64_t>{8, 16, 32}));
  auto error = [](const std::string& op, const Json& v) {
    try {
      ops::shape_from_json(op, v, "w.shape");
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("conv2d", parse_json(R"({"c":"64"})")), "w.shape.c: expected an integer extent, got a string");
  EXPECT_EQ(error("conv2d", parse_json("[1, 2.5]")), "w.shape[1]: expected an integer extent, got a fraction");
  EXPECT_EQ(error("conv2d", Json(true)).rfind("w.shape: expected a list of extents", 0), 0u);
  EXPECT_NE(error("conv2d", Json("c=64,h=56")).find("w= is missing"), std::string::npos);
  EXPECT_EQ(error("conv2d", Json("c=64,h=56")).rfind("w.shape: ", 0), 0u);
}

TEST(NamedShape, SuitesTakeEveryForm) {
  const regress::Suite s = regress::parse_suite(R"({"workloads": [
      {"name": "list", "op": "conv2d", "shape": [1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1]},
      {"name": "text", "op": "conv2d_bias_relu", "shape": "n=1,c=64,h=56,w=56,k=64,r=3,s=3,stride=1,pad=1"},
      {"name": "object", "op": "conv2d_bias_add_relu", "shape": {"c": 64, "h": 56, "w": 56, "k": 64, "r": 3, "s": 3, "pad": 1}},
      {"op": "dense", "shape": "M=8,N=8,K=8"}]})",
                                                "s.json");
  ASSERT_EQ(s.workloads.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s.workloads[i].workload.shape, kLayer) << s.workloads[i].name;
  EXPECT_EQ(s.workloads[3].name, "dense[8,8,8]");
  EXPECT_EQ(suite_error(R"({"workloads": [{"op": "conv2d", "shape": "c=6,h=5,w=5,k=4,r=3,s=3,groups=4"}]})"),
            "s.json: workloads[0]: unknown workload conv2d[1,6,5,5,4,3,3,1,1,4,0,0,0,0]: conv2d shape "
            "n=1,c=6,h=5,w=5,k=4,r=3,s=3,groups=4: groups = 4 does not divide c = 6");
  EXPECT_NE(
      suite_error(R"({"workloads": [{"op": "conv2d", "shape": {"c": 6, "h": 5, "w": 5, "k": 4, "r": 3, "t": 3}}]})")
          .find("workloads[0].shape: conv2d shape: unknown extent 't'"),
      std::string::npos);
}

TEST(NamedShape, JobFilesTakeEveryFormWhereTheOpsAreKnown) {
  const fleet::v1::JobSpec spec = fleet::job_spec_from_text(R"({"workloads": [
      {"op": "conv2d", "shape": [1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1]},
      {"op": "conv2d_bias_clip", "shape": "c=64,h=56,w=56,k=64,r=3,s=3,pad=1"},
      {"op": "conv2d", "shape": {"n": 1, "c": 64, "h": 56, "w": 56, "k": 64, "r": 3, "s": 3, "pad": 1}}]})",
                                                            ops::shape_from_json);
  ASSERT_EQ(spec.workloads_size(), 3);
  for (const auto& w : spec.workloads()) EXPECT_EQ(std::vector<int64_t>(w.shape().begin(), w.shape().end()), kLayer);
  // The stored spec is positional, so the tracker and boards read it back without the ops.
  EXPECT_EQ(fleet::job_spec_to_json(spec).at("workloads").at(1).at("shape"), Json(kLayer));

  EXPECT_EQ(job_error(R"({"workloads": [{"op": "conv2d", "shape": "c=64,h=56,w=56,k=64,r=3,s=3,strde=2"}]})")
                .rfind("workloads[0].shape: conv2d shape: unknown extent 'strde'", 0),
            0u);
  EXPECT_EQ(job_error(R"({"workloads": [{"op": "conv2d", "shape": {"c": 1.5}}]})"),
            "workloads[0].shape.c: expected an integer extent, got a fraction");
  EXPECT_EQ(job_error(R"({"workloads": [{"op": "conv2d", "shape": {"c": 64}}]})")
                .rfind("workloads[0].shape: conv2d shape: h= is missing", 0),
            0u);
  // Without the ops (a board), only the list form is understood.
  try {
    fleet::job_spec_from_text(R"({"workloads": [{"op": "conv2d", "shape": "c=64"}]})");
    ADD_FAILURE() << "accepted";
  } catch (const fleet::SpecError& e) {
    EXPECT_EQ(std::string(e.what()), "workloads[0].shape: expected a list of extents, got a string");
  }
}

}  // namespace
}  // namespace tf
