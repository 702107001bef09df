// ONNX models a test writes (tests/onnx_model_builder.h) taken the way a user's model goes: import,
// plan, build with default configs for this host, run on float32 inputs; or the refusal a step gives.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/error.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"

namespace tf::graph::testing {

using FloatTensors = std::map<std::string, std::vector<float>>;

// The message of the CompileError the call throws ("" when it throws none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

inline std::string import_error(const OnnxModelBuilder& b) {
  return error_of([&] { import_onnx_bytes(b.bytes(), "test.onnx"); });
}
inline std::string plan_error(const OnnxModelBuilder& b) {
  return error_of([&] { plan_graph(import_onnx_bytes(b.bytes(), "test.onnx")); });
}

inline runtime::model::ModelFile build_with_defaults(const OnnxModelBuilder& b) {
  BuildOptions options;
  options.target = codegen::host_target();
  return build_model(plan_graph(import_onnx_bytes(b.bytes(), "test.onnx"), plan_options_for(options.target)), options);
}
inline std::string build_error(const OnnxModelBuilder& b) {
  return error_of([&] { build_with_defaults(b); });
}

// Every output of the built model run on `feeds`, by name.
inline FloatTensors run_floats(const OnnxModelBuilder& b, const FloatTensors& feeds) {
  runtime::model::Executor exec(build_with_defaults(b));
  return exec.run_floats(feeds);
}

// Every output of the built model run on typed `feeds` (float32, int64, int32, bool), by name.
inline runtime::model::HostTensors run_typed(const OnnxModelBuilder& b, const runtime::model::HostTensors& feeds) {
  runtime::model::Executor exec(build_with_defaults(b));
  return exec.run(feeds);
}

// Output `name` has `shape` and the values `want`, each within tolerance * (1 + |want|) (0: exactly).
inline void expect_output(const runtime::model::HostTensors& out, const std::string& name, const Shape& shape,
                          const std::vector<double>& want, double tolerance = 0) {
  SCOPED_TRACE(name);
  ASSERT_EQ(out.count(name), 1u);
  const HostTensor& t = out.at(name);
  EXPECT_EQ(t.shape, shape);
  ASSERT_EQ(t.elements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    if (tolerance == 0)
      EXPECT_EQ(t.at(static_cast<int64_t>(i)), want[i]) << "element " << i;
    else
      EXPECT_NEAR(t.at(static_cast<int64_t>(i)), want[i], tolerance * (1 + std::abs(want[i]))) << "element " << i;
  }
}

// |got - want| <= tolerance * (1 + |want|) element by element.
inline void expect_near_all(const std::vector<float>& got, const std::vector<double>& want, double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * (1 + std::abs(want[i]))) << "element " << i;
}

}  // namespace tf::graph::testing
