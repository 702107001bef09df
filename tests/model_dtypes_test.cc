// A compiled model whose values are not all float32: int64 token ids cast to float, a comparison
// into a bool mask and back, int32 and bool constants, each value written into the .tfm with its
// dtype and sized by it, every kernel argument's type checked at build time against the kernel's
// placeholder (a mismatch names the node), the executor's typed inputs checked by name, and
// `tunefarm model run` on an int64 .npy. ONNX import of int64, int32 and bool inputs and
// initializers.
//
// The graph is written here in the graph IR and lowered by the test itself, node by node, to typed
// elementwise kernels: the op registry (graph/ops/) does the same for ONNX's Cast and comparisons.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "compiler/error.h"
#include "compiler/ops/elementwise.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "runtime/model/executor.h"
#include "support/json.h"
#include "support/npy.h"
#include "tests/cli_runner.h"
#include "tests/onnx_model_builder.h"

namespace tf::graph {
namespace {

namespace fs = std::filesystem;
using K = ops::ElementwiseKind;
using runtime::model::Executor;
using runtime::model::HostTensors;
using runtime::model::ModelFileError;

// ids [2,3] int64, x [2,3] float32, offsets [3] int64, keep [3] bool, bias32 [3] int32:
//   shifted = ids + offsets                 int64   (output)
//   score   = cast(ids, float32) + x        float32
//   above   = score > 2.5                   bool    (output)
//   kept    = cast(keep, float32) * cast(above, float32)   float32 (output)
//   index   = cast(ids, int32) + bias32     int32   (output)
Graph typed_graph() {
  Graph g;
  g.set_value({"ids", DType::Int64, {2, 3}, nullptr});
  g.set_value({"x", DType::Float32, {2, 3}, nullptr});
  auto constant = [&](const std::string& name, Tensor t) {
    Value v{name, t.dtype, t.shape, nullptr};
    v.data = std::make_shared<const Tensor>(std::move(t));
    g.set_value(v);
  };
  constant("offsets", Tensor::ints({3}, {100, -100, int64_t{1} << 40}));
  constant("keep", Tensor::ints({3}, {1, 0, 1}, DType::Bool));
  constant("bias32", Tensor::ints({3}, {1000, 2000, -3000}, DType::Int32));
  for (const auto& [name, dtype] : std::vector<std::pair<std::string, DType>>{{"shifted", DType::Int64},
                                                                              {"score", DType::Float32},
                                                                              {"above", DType::Bool},
                                                                              {"kept", DType::Float32},
                                                                              {"ids32", DType::Int32},
                                                                              {"index", DType::Int32}}) {
    g.set_value({name, dtype, {2, 3}, nullptr});
  }
  g.inputs = {"ids", "x"};
  g.nodes = {Node{"shift", "Add", {"ids", "offsets"}, {"shifted"}, {}, nullptr},
             Node{"score", "CastAdd", {"ids", "x"}, {"score"}, {}, nullptr},
             Node{"above", "Greater", {"score"}, {"above"}, {}, nullptr},
             Node{"kept", "MaskMul", {"keep", "above"}, {"kept"}, {}, nullptr},
             Node{"to_int32", "Cast", {"ids"}, {"ids32"}, {}, nullptr},
             Node{"index", "Add", {"ids32", "bias32"}, {"index"}, {}, nullptr}};
  g.outputs = {"shifted", "above", "kept", "index"};
  return g;
}

// The test's own lowering: each node one typed elementwise kernel over its inputs, broadcast to
// the output's rank; `wrong` declares every input float32 (what a lowering ignorant of types did).
NodeLowering lower_typed(const Graph& g, const Node& n, bool wrong = false) {
  ops::ElementwiseExprPtr e;
  if (n.op == "Add") e = ops::ew_binary(K::Add, ops::ew_input(0), ops::ew_input(1));
  if (n.op == "CastAdd") e = ops::ew_binary(K::Add, ops::ew_cast(ops::ew_input(0), DType::Float32), ops::ew_input(1));
  // x > 2.5 as relu(x - 2.5) != 0, from the kinds this branch has.
  if (n.op == "Greater")
    e = ops::ew_cast(ops::ew_unary(K::Relu, ops::ew_binary(K::Sub, ops::ew_input(0), ops::ew_constant(2.5))),
                     DType::Bool);
  if (n.op == "MaskMul")
    e = ops::ew_binary(K::Mul, ops::ew_cast(ops::ew_input(0), DType::Float32),
                       ops::ew_cast(ops::ew_input(1), DType::Float32));
  if (n.op == "Cast") e = ops::ew_cast(ops::ew_input(0), g.value(n.outputs[0]).dtype);
  if (!e) throw CompileError(n.describe() + ": the test lowers no such op");
  const Shape& out = g.value(n.outputs[0]).shape;
  std::vector<DType> types;
  KernelCall c;
  for (const auto& in : n.inputs) {
    Shape s = g.value(in).shape;
    s.insert(s.begin(), out.size() - s.size(), 1);
    c.shape.insert(c.shape.end(), s.begin(), s.end());
    c.arg_shapes.push_back(s);
    types.push_back(wrong ? DType::Float32 : g.value(in).dtype);
  }
  auto op =
      std::make_shared<ops::ElementwiseOperator>(e, static_cast<int>(out.size()), types, g.value(n.outputs[0]).dtype);
  c.arg_shapes.push_back(out);
  c.op = op;
  c.args = n.inputs;
  c.args.push_back(n.outputs[0]);
  NodeLowering l;
  l.call = std::move(c);
  return l;
}

runtime::model::ModelFile build_typed(BuildReport* report = nullptr) {
  BuildOptions options;
  options.target = codegen::host_target();
  options.lower = [](const Graph& g, const Node& n) { return lower_typed(g, n); };
  return build_model(typed_graph(), options, report);
}

const std::vector<int64_t> kIds = {0, 1, 2, 3, -4, 7};
const std::vector<float> kX = {0.25f, 1.0f, 1.0f, -1.0f, 8.0f, -4.75f};

void expect_typed_outputs(const HostTensors& out) {
  EXPECT_EQ(out.at("shifted").as_int64s(),
            (std::vector<int64_t>{100, -99, 2 + (int64_t{1} << 40), 103, -104, 7 + (int64_t{1} << 40)}));
  // score = ids + x = 0.25, 2, 3, 2, 4, 2.25
  EXPECT_EQ(out.at("above").as_bools(), (std::vector<uint8_t>{0, 0, 1, 0, 1, 0}));
  EXPECT_EQ(out.at("kept").as_floats(), (std::vector<float>{0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(out.at("index").as_int32s(), (std::vector<int32_t>{1000, 2001, -2998, 1003, 1996, -2993}));
}

TEST(ModelDtypes, ATypedGraphBuildsAndRunsWithEachValuesDtype) {
  BuildReport report;
  const runtime::model::ModelFile file = build_typed(&report);
  std::map<std::string, DType> dtypes;
  for (const auto& v : file.values) dtypes[v.name] = v.dtype;
  EXPECT_EQ(dtypes.at("ids"), DType::Int64);
  EXPECT_EQ(dtypes.at("offsets"), DType::Int64);
  EXPECT_EQ(dtypes.at("keep"), DType::Bool);
  EXPECT_EQ(dtypes.at("bias32"), DType::Int32);
  EXPECT_EQ(dtypes.at("above"), DType::Bool);
  EXPECT_EQ(dtypes.at("index"), DType::Int32);
  // Constants packed at their own widths: 3 int64 (24 bytes), 3 bools (3), 3 int32 (12), each
  // section 64-byte aligned.
  EXPECT_EQ(report.constant_bytes, 128 + 12);
  EXPECT_EQ(report.steps, 6u);

  Executor exec(file);
  ASSERT_EQ(exec.inputs().size(), 2u);
  EXPECT_EQ(exec.inputs()[0].dtype, DType::Int64);
  EXPECT_EQ(exec.outputs()[1].dtype, DType::Bool);
  const HostTensors out = exec.run({{"ids", HostTensor::int64s({2, 3}, kIds)}, {"x", HostTensor::floats({2, 3}, kX)}});
  EXPECT_EQ(out.at("above").shape, (std::vector<int64_t>{2, 3}));
  expect_typed_outputs(out);
}

// The memory plan sizes each buffer by its dtype: a bool [2,3] takes 6 bytes (one 64-byte slot),
// an int64 [2,3] 48; everything live at once here fits in a few slots, never 4 bytes an element.
TEST(ModelDtypes, TheArenaIsSizedByEachValuesElementWidth) {
  const runtime::model::ModelFile file = build_typed();
  std::map<std::string, int64_t> bytes;
  for (const auto& v : file.values) bytes[v.name] = v.bytes();
  EXPECT_EQ(bytes.at("above"), 6);
  EXPECT_EQ(bytes.at("shifted"), 48);
  EXPECT_LE(file.arena_bytes, 6 * 64);
}

TEST(ModelDtypes, AKernelArgumentOfAnotherTypeIsRefusedNamingTheNode) {
  BuildOptions options;
  options.target = codegen::host_target();
  options.lower = [](const Graph& g, const Node& n) { return lower_typed(g, n, /*wrong=*/n.name == "score"); };
  try {
    build_model(typed_graph(), options);
    FAIL() << "built";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "node 'score': value 'ids' is int64 but kernel elementwise[add(cast(x0,float32),x1)][2,3,2,3] takes "
                  "float32 as its input 0"),
              std::string::npos)
        << e.what();
  }
}

TEST(ModelDtypes, TypedInputsAreCheckedByName) {
  Executor exec(build_typed());
  auto error = [&](const HostTensors& in) {
    try {
      exec.run(in);
    } catch (const ModelFileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const HostTensor x = HostTensor::floats({2, 3}, kX);
  EXPECT_EQ(error({{"ids", HostTensor::floats({2, 3}, kX)}, {"x", x}}),
            "input 'ids' is float32; the model takes int64");
  EXPECT_EQ(error({{"ids", HostTensor::int32s({2, 3}, {1, 2, 3, 4, 5, 6})}, {"x", x}}),
            "input 'ids' is int32; the model takes int64");
  EXPECT_EQ(error({{"ids", HostTensor::int64s({5}, {1, 2, 3, 4, 5})}, {"x", x}}),
            "input 'ids' has 5 elements; the model takes 6");
  HostTensor short_bytes = HostTensor::int64s({2, 3}, kIds);
  short_bytes.bytes.resize(40);
  EXPECT_EQ(error({{"ids", short_bytes}, {"x", x}}), "input 'ids' holds 40 bytes; its 6 int64 elements are 48");
  EXPECT_EQ(error({{"x", x}}), "input 'ids' is not given");
  try {
    exec.run_floats({{"ids", std::vector<float>(6)}, {"x", kX}});
    FAIL();
  } catch (const ModelFileError& e) {
    EXPECT_EQ(std::string(e.what()), "input 'ids' is int64; give it as a typed tensor");
  }
}

TEST(ModelDtypes, ATypedModelRoundTripsThroughTheFileAndModelRun) {
  const std::string dir = ::testing::TempDir() + "tf-dtypes-" + std::to_string(::getpid());
  fs::create_directories(dir);
  runtime::model::write_model_file(build_typed(), dir + "/typed.tfm");
  const runtime::model::ModelFile back = runtime::model::read_model_file(dir + "/typed.tfm");
  Executor exec(back);
  expect_typed_outputs(exec.run({{"ids", HostTensor::int64s({2, 3}, kIds)}, {"x", HostTensor::floats({2, 3}, kX)}}));

  write_npy(dir + "/ids.npy", HostTensor::int64s({2, 3}, kIds));
  write_npy(dir + "/x.npy", HostTensor::floats({2, 3}, kX));
  Result r = run_cli("model run " + dir + "/typed.tfm --input ids=" + dir + "/ids.npy --input x=" + dir + "/x.npy -o " +
                     dir + "/out --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(r.out);
  HostTensors got;
  for (const auto& o : j["outputs"]) {
    got[o["name"].get<std::string>()] = read_npy(o["file"].get<std::string>());
    EXPECT_EQ(o["dtype"].get<std::string>(), dtype_name(got[o["name"].get<std::string>()].dtype));
  }
  ASSERT_EQ(got.size(), 4u);
  expect_typed_outputs(got);

  // A float32 file for the int64 input is refused by name.
  r = run_cli("model run " + dir + "/typed.tfm --input ids=" + dir + "/x.npy --input x=" + dir + "/x.npy -o " + dir +
              "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--input ids: " + dir + "/x.npy holds float32; the model takes int64"), std::string::npos)
      << r.err;
  fs::remove_all(dir);
}

TEST(ModelDtypes, OnnxInputsAndInitializersOfEachDtypeImport) {
  using testing::OnnxModelBuilder;
  OnnxModelBuilder b(13);
  b.input("ids", {2, 3}, onnx::TensorProto::INT64)
      .input("lengths", {2}, onnx::TensorProto::INT32)
      .input("mask", {2, 3}, onnx::TensorProto::BOOL);
  auto& c32 = b.initializer("c32", onnx::TensorProto::INT32, {3});
  for (int32_t v : {1, -2, 3}) c32.add_int32_data(v);
  auto& cb = b.initializer("cb", onnx::TensorProto::BOOL, {2});
  cb.add_int32_data(1);
  cb.add_int32_data(0);
  auto& cb_raw = b.initializer("cb_raw", onnx::TensorProto::BOOL, {3});
  cb_raw.set_raw_data(std::string("\x01\x00\x05", 3));
  for (const char* out : {"ids", "lengths", "mask", "c32", "cb", "cb_raw"}) {
    b.node("Identity", {out}, {std::string(out) + "_out"});
    b.output(std::string(out) + "_out");
  }
  const Graph g = import_onnx_bytes(b.bytes(), "typed.onnx");
  EXPECT_EQ(g.value("ids").dtype, DType::Int64);
  EXPECT_EQ(g.value("lengths").dtype, DType::Int32);
  EXPECT_EQ(g.value("mask").dtype, DType::Bool);
  ASSERT_NE(g.constant("c32"), nullptr);
  EXPECT_EQ(g.constant("c32")->dtype, DType::Int32);
  EXPECT_EQ(g.constant("c32")->i64, (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(g.constant("cb")->dtype, DType::Bool);
  EXPECT_EQ(g.constant("cb")->i64, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(g.constant("cb_raw")->i64, (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(g.constant("cb_raw")->at(2), 1.0);

  OnnxModelBuilder half(13);
  half.input("h", {2}, onnx::TensorProto::FLOAT16).output("h_out");
  half.node("Identity", {"h"}, {"h_out"});
  try {
    import_onnx_bytes(half.bytes(), "half.onnx");
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "input 'h': dtype FLOAT16 is not supported (float32, int64, int32, bool, float64, int8, uint8)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tf::graph
