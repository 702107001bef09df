// Each graph pass on tiny hand-built graphs: the nodes before and after, and the outputs unchanged
// (the test-only evaluator runs both graphs on the same random inputs).
#include <gtest/gtest.h>

#include "compiler/error.h"
#include "graph/onnx_import.h"
#include "graph/passes/passes.h"
#include "graph/pipeline.h"
#include "graph/shape_inference.h"
#include "graph/tasks.h"
#include "tests/graph_builders.h"
#include "tests/graph_evaluator.h"
#include "tests/onnx_model_builder.h"

namespace tf::graph {
namespace {

using testing::add_constant;
using testing::Evaluator;
using testing::node;
using testing::OnnxModelBuilder;
using testing::random_tensor;

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1, float hi = 1) {
  return random_tensor({int64_t(n)}, seed, lo, hi).f32;
}

Graph import(const OnnxModelBuilder& b) { return import_onnx_bytes(b.bytes(), "test.onnx"); }

// Runs both graphs on the same random inputs; the largest relative difference over the outputs.
double difference(const Graph& before, const Graph& after, uint32_t seed = 1) {
  testing::Values inputs;
  for (const auto& name : before.inputs) inputs[name] = random_tensor(before.value(name).shape, seed++);
  const auto a = Evaluator(before).run(inputs);
  const auto b = Evaluator(after).run(inputs);
  double worst = 0;
  for (const auto& [name, t] : a) {
    EXPECT_EQ(b.at(name).shape, t.shape) << name;
    worst = std::max(worst, testing::max_relative_difference(b.at(name), t));
  }
  return worst;
}

TEST(GraphPasses, FoldConstantsEvaluatesConstantSubgraphsAndBypassesIdentity) {
  Graph g;
  g.set_value(Value{"x", DType::Float32, {2, 3}, nullptr});
  g.inputs = {"x"};
  add_constant(g, "a", Tensor::floats({3}, {1, 2, 3}));
  add_constant(g, "b", Tensor::floats({1}, {0.5f}));
  g.nodes = {node("Mul", {"a", "b"}, {"scaled"}), node("Sqrt", {"scaled"}, {"root"}), node("Identity", {"x"}, {"same"}),
             node("Add", {"same", "root"}, {"y"})};
  g.outputs = {"y"};
  infer_shapes(g);
  const Graph folded = passes::fold_constants(g);
  ASSERT_EQ(folded.nodes.size(), 1u);
  EXPECT_EQ(folded.nodes[0].op, "Add");
  EXPECT_EQ(folded.nodes[0].inputs[0], "x");
  const Tensor* root = folded.constant(folded.nodes[0].inputs[1]);
  ASSERT_NE(root, nullptr);
  EXPECT_FLOAT_EQ(root->f32[2], std::sqrt(1.5f));
  EXPECT_FALSE(folded.has_value("a"));  // nothing reads the inputs of a folded node any more
  EXPECT_EQ(difference(g, folded), 0.0);
}

OnnxModelBuilder conv_bn(bool conv_bias) {
  OnnxModelBuilder b(13);
  b.input("x", {1, 3, 6, 6}).output("y");
  b.floats("w", {4, 3, 3, 3}, random_floats(108, 2));
  std::vector<std::string> conv_in = {"x", "w"};
  if (conv_bias) {
    b.floats("cb", {4}, random_floats(4, 3));
    conv_in.push_back("cb");
  }
  b.floats("scale", {4}, random_floats(4, 4, 0.5f, 2)).floats("shift", {4}, random_floats(4, 5));
  b.floats("mean", {4}, random_floats(4, 6)).floats("var", {4}, random_floats(4, 7, 0.2f, 2));
  OnnxModelBuilder::attr(b.node("Conv", conv_in, {"c"}, "conv"), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"y"}, "bn");
  return b;
}

TEST(GraphPasses, FoldBatchnormMovesTheNormalizationIntoTheConvWeights) {
  for (bool conv_bias : {false, true}) {
    const Graph g = import(conv_bn(conv_bias));
    const Graph folded = passes::fold_batchnorm(g);
    ASSERT_EQ(folded.nodes.size(), 1u);
    const Node& conv = folded.nodes[0];
    EXPECT_EQ(conv.op, "Conv");
    ASSERT_EQ(conv.inputs.size(), 3u);  // gained a bias when it had none
    EXPECT_EQ(conv.outputs[0], "y");
    EXPECT_NE(folded.constant(conv.inputs[1]), g.constant("w"));
    EXPECT_LT(difference(g, folded), 1e-5) << "conv bias " << conv_bias;
  }
}

TEST(GraphPasses, FoldBatchnormLeavesAConvWhoseOutputIsReadElsewhere) {
  OnnxModelBuilder b = conv_bn(false);
  b.output("c");
  const Graph g = import(b);
  const Graph after = passes::fold_batchnorm(g);
  EXPECT_EQ(count_ops(after), count_ops(g));
}

// x -> Conv(3x3, pad 1) -> `tail` ops; returns the imported graph.
Graph conv_with_tail(const std::function<std::string(OnnxModelBuilder&, const std::string&)>& tail, bool bias = true) {
  OnnxModelBuilder b(13);
  b.input("x", {1, 4, 5, 5})
      .input("res", {1, 4, 5, 5})
      .floats("w", {4, 4, 3, 3}, random_floats(144, 11))
      .floats("cb", {4}, random_floats(4, 12));
  std::vector<std::string> in = {"x", "w"};
  if (bias) in.push_back("cb");
  OnnxModelBuilder::attr(b.node("Conv", in, {"c"}, "conv"), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.output(tail(b, "c"));
  return import(b);
}

TEST(GraphPasses, FuseEpiloguesMakesEachFusedConv) {
  struct Case {
    const char* expect;
    std::function<std::string(OnnxModelBuilder&, const std::string&)> tail;
    bool bias;
  };
  const std::vector<Case> cases = {
      {"conv2d", [](OnnxModelBuilder&, const std::string& c) { return c; }, false},
      {"conv2d_bias", [](OnnxModelBuilder&, const std::string& c) { return c; }, true},
      {"conv2d_bias_relu",
       [](OnnxModelBuilder& b, const std::string& c) {
         b.node("Relu", {c}, {"y"});
         return std::string("y");
       },
       false},
      {"conv2d_bias_add_relu",
       [](OnnxModelBuilder& b, const std::string& c) {
         b.node("Add", {"res", c}, {"s"});
         b.node("Relu", {"s"}, {"y"});
         return std::string("y");
       },
       true},
      {"conv2d_bias_add",  // a linear bottleneck's residual, no ReLU after it
       [](OnnxModelBuilder& b, const std::string& c) {
         b.node("Add", {c, "res"}, {"y"});
         return std::string("y");
       },
       true},
      {"conv2d_bias",  // the bias an exporter writes as an Add of a [K,1,1] constant
       [](OnnxModelBuilder& b, const std::string& c) {
         b.floats("per_channel", {4, 1, 1}, random_floats(4, 13));
         b.node("Add", {c, "per_channel"}, {"y"});
         return std::string("y");
       },
       false},
      {"conv2d_bias_relu",  // ... then a ReLU: both absorbed
       [](OnnxModelBuilder& b, const std::string& c) {
         b.floats("per_channel", {1, 4, 1, 1}, random_floats(4, 14));
         b.node("Add", {"per_channel", c}, {"s"});
         b.node("Relu", {"s"}, {"y"});
         return std::string("y");
       },
       false},
      {"conv2d_bias_clip",
       [](OnnxModelBuilder& b, const std::string& c) {
         b.floats("lo", {}, {0}).floats("hi", {}, {6});
         b.node("Clip", {c, "lo", "hi"}, {"y"});
         return std::string("y");
       },
       true},
  };
  for (const auto& c : cases) {
    Graph g = conv_with_tail(c.tail, c.bias);
    if (std::string(c.expect).find("_add") == std::string::npos) g.inputs = {"x"}, g.remove_unused_values();
    const Graph fused = passes::fuse_epilogues(g);
    ASSERT_EQ(fused.nodes.size(), 1u) << c.expect;
    EXPECT_EQ(fused.nodes[0].op, c.expect);
    EXPECT_EQ(fused.nodes[0].outputs[0], g.outputs[0]);
    EXPECT_LT(difference(g, fused), 1e-6) << c.expect;
    const auto kernel = node_kernel(fused, fused.nodes[0]);
    ASSERT_TRUE(kernel) << c.expect;
    EXPECT_EQ(kernel->shape_text, "n=1,c=4,h=5,w=5,k=4,r=3,s=3,pad=1");
  }
}

TEST(GraphPasses, FuseEpiloguesLeavesWhatTheKernelsCannotDo) {
  // clip(0, 5) is not relu6; the conv still takes its bias.
  Graph clip5 = conv_with_tail([](OnnxModelBuilder& b, const std::string& c) {
    b.floats("lo", {}, {0}).floats("hi", {}, {5});
    b.node("Clip", {c, "lo", "hi"}, {"y"});
    return std::string("y");
  });
  const Graph a = passes::fuse_epilogues(clip5);
  EXPECT_EQ(count_ops(a), (std::map<std::string, int>{{"Clip", 1}, {"conv2d_bias", 1}}));
  // An Add of a constant that is not one value per channel is no bias.
  Graph spatial = conv_with_tail(
      [](OnnxModelBuilder& b, const std::string& c) {
        b.floats("plane", {1, 1, 5, 5}, random_floats(25, 15));
        b.node("Add", {c, "plane"}, {"y"});
        return std::string("y");
      },
      false);
  spatial.inputs = {"x"}, spatial.remove_unused_values();
  EXPECT_EQ(count_ops(passes::fuse_epilogues(spatial)), (std::map<std::string, int>{{"Add", 1}, {"conv2d", 1}}));
  // The relu's input is also a model output: it must survive.
  OnnxModelBuilder b(13);
  b.input("x", {1, 4, 5, 5}).floats("w", {4, 4, 1, 1}, random_floats(16, 3)).output("c").output("y");
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Relu", {"c"}, {"y"});
  const Graph both = passes::fuse_epilogues(import(b));
  EXPECT_EQ(count_ops(both), (std::map<std::string, int>{{"Relu", 1}, {"conv2d", 1}}));
}

TEST(GraphPasses, FuseEpiloguesMakesDenseKernelsFromMatMulAndGemm) {
  OnnxModelBuilder b(13);
  b.input("x", {2, 3, 8}).input("q", {2, 4, 6}).input("k", {2, 6, 5});
  b.floats("w", {8, 6}, random_floats(48, 21)).floats("bias", {6}, random_floats(6, 22));
  b.floats("fc", {5, 6}, random_floats(30, 23)).floats("fcb", {5}, random_floats(5, 24));
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Add", {"m", "bias"}, {"mb"});
  b.node("Relu", {"mb"}, {"h"});  // dense_bias_relu [6, 6, 8]
  b.ints("flat", {2}, {6, 6});
  b.node("Reshape", {"h", "flat"}, {"h2"});
  OnnxModelBuilder::attr(b.node("Gemm", {"h2", "fc", "fcb"}, {"y"}), "transB",
                         int64_t{1});     // dense_bias, weight transposed
  b.node("MatMul", {"q", "k"}, {"att"});  // two computed operands: dense per matrix
  b.output("y").output("att");
  const Graph g = import(b);
  const Graph fused = passes::fuse_epilogues(g);
  EXPECT_EQ(count_ops(fused),
            (std::map<std::string, int>{{"Reshape", 1}, {"dense", 1}, {"dense_bias", 1}, {"dense_bias_relu", 1}}));
  EXPECT_LT(difference(g, fused), 1e-6);
  std::map<std::string, std::pair<std::string, int64_t>> kernels;
  for (const auto& n : fused.nodes) {
    if (auto k = node_kernel(fused, n)) kernels[n.op] = {k->shape_text, k->calls};
  }
  EXPECT_EQ(kernels.at("dense_bias_relu"), std::make_pair(std::string("6,6,8"), int64_t{1}));
  EXPECT_EQ(kernels.at("dense_bias"), std::make_pair(std::string("6,5,6"), int64_t{1}));
  EXPECT_EQ(kernels.at("dense"), std::make_pair(std::string("4,5,6"), int64_t{2}));
}

TEST(GraphPasses, AMatMulWithABatchedConstantIsOneDensePerMatrix) {
  OnnxModelBuilder b(13);
  b.input("q", {3, 4, 6}).floats("kw", {3, 6, 5}, random_floats(90, 31)).output("y");
  b.node("MatMul", {"q", "kw"}, {"y"});
  const Graph g = import(b);
  const Graph fused = passes::fuse_epilogues(g);
  ASSERT_EQ(fused.nodes.size(), 1u);
  EXPECT_EQ(fused.nodes[0].op, "dense");
  const auto k = node_kernel(fused, fused.nodes[0]);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->shape_text, "4,5,6");
  EXPECT_EQ(k->calls, 3);
  EXPECT_EQ(k->constant_inputs, std::vector<size_t>{1});
  EXPECT_LT(difference(g, fused), 1e-6);
}

TEST(GraphPasses, FuseElementwiseMakesOneNodeOfAChain) {
  // GELU as exporters write it, then a relu the chain may take, and a value read twice that it may not.
  OnnxModelBuilder b(13);
  b.input("x", {2, 8}).output("y").output("z");
  b.floats("sqrt2", {}, {1.41421356f}).floats("one", {}, {1}).floats("half", {}, {0.5f});
  b.node("Div", {"x", "sqrt2"}, {"d"});
  b.node("Erf", {"d"}, {"e"});
  b.node("Add", {"e", "one"}, {"a"});
  b.node("Mul", {"x", "a"}, {"m"});
  b.node("Mul", {"m", "half"}, {"g"});
  b.node("Tanh", {"g"}, {"t"});
  b.node("Sigmoid", {"t"}, {"y"});
  b.node("Relu", {"t"}, {"z"});
  const Graph g = import(b);
  const Graph fused = passes::fuse_elementwise(g);
  // Div..Tanh is one chain; t has two readers, so Sigmoid and Relu stay apart.
  EXPECT_EQ(count_ops(fused), (std::map<std::string, int>{{"Relu", 1}, {"Sigmoid", 1}, {kFusedElementwise, 1}}));
  const Node& chain = fused.nodes[0];
  EXPECT_EQ(chain.op, kFusedElementwise);
  EXPECT_EQ(chain.attr_string("ops", ""), "Div,Erf,Add,Mul,Mul,Tanh");
  EXPECT_EQ(chain.outputs, std::vector<std::string>{"t"});
  EXPECT_EQ(chain.inputs, (std::vector<std::string>{"x", "sqrt2", "one", "half"}));
  ASSERT_TRUE(chain.body);
  EXPECT_EQ(chain.body->nodes.size(), 6u);
  EXPECT_NO_THROW(chain.body->check());
  EXPECT_EQ(difference(g, fused), 0.0);
}

TEST(GraphPasses, FuseElementwiseStopsWhereTheShapeGrows) {
  OnnxModelBuilder b(13);
  b.input("x", {1, 8}).input("rows", {4, 1}).output("y");
  b.node("Relu", {"x"}, {"r"});
  b.node("Add", {"r", "rows"}, {"y"});  // [1,8] + [4,1] -> [4,8]
  const Graph fused = passes::fuse_elementwise(import(b));
  EXPECT_EQ(count_ops(fused), (std::map<std::string, int>{{"Add", 1}, {"Relu", 1}}));
}

TEST(GraphPasses, ThePipelinePlansAResidualBlockWithoutChangingItsResult) {
  // conv-bn-relu, conv-bn, a 1x1 strided shortcut conv-bn, add, relu, then pooling and a classifier.
  OnnxModelBuilder b(13);
  b.input("x", {-1, 4, 8, 8}).output("logits");
  int seed = 100;
  auto bn = [&](const std::string& in, const std::string& out, int c) {
    const std::string p = out + "_";
    b.floats(p + "s", {c}, random_floats(c, seed, 0.5f, 1.5f));
    b.floats(p + "b", {c}, random_floats(c, seed + 1));
    b.floats(p + "m", {c}, random_floats(c, seed + 2));
    b.floats(p + "v", {c}, random_floats(c, seed + 3, 0.5f, 1.5f));
    seed += 4;
    b.node("BatchNormalization", {in, p + "s", p + "b", p + "m", p + "v"}, {out});
  };
  auto conv = [&](const std::string& in, const std::string& out, int cin, int cout, int k, int stride) {
    b.floats(out + "_w", {cout, cin, k, k}, random_floats(cout * cin * k * k, seed++));
    auto& n = b.node("Conv", {in, out + "_w"}, {out});
    OnnxModelBuilder::attr(n, "strides", std::vector<int64_t>{stride, stride});
    OnnxModelBuilder::attr(n, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
  };
  conv("x", "c1", 4, 8, 3, 2);
  bn("c1", "b1", 8);
  b.node("Relu", {"b1"}, {"r1"});
  conv("r1", "c2", 8, 8, 3, 1);
  bn("c2", "b2", 8);
  conv("x", "cs", 4, 8, 1, 2);
  bn("cs", "bs", 8);
  b.node("Add", {"b2", "bs"}, {"sum"});
  b.node("Relu", {"sum"}, {"r2"});
  b.node("GlobalAveragePool", {"r2"}, {"pool"});
  OnnxModelBuilder::attr(b.node("Flatten", {"pool"}, {"flat"}), "axis", int64_t{1});
  b.floats("fc_w", {3, 8}, random_floats(24, seed));
  b.floats("fc_b", {3}, random_floats(3, seed + 1));
  OnnxModelBuilder::attr(b.node("Gemm", {"flat", "fc_w", "fc_b"}, {"logits"}), "transB", int64_t{1});
  const Graph g = import(b);
  const Graph planned = plan_graph(g, PlanOptions{false});
  EXPECT_EQ(count_ops(planned), (std::map<std::string, int>{{"Flatten", 1},
                                                            {"GlobalAveragePool", 1},
                                                            {"conv2d_bias", 1},
                                                            {"conv2d_bias_add_relu", 1},
                                                            {"conv2d_bias_relu", 1},
                                                            {"dense_bias", 1}}));
  EXPECT_LT(difference(g, planned), 1e-5);
  EXPECT_EQ(pipeline_pass_names(),
            (std::vector<std::string>{"fold_constants", "fuse_qdq", "lift_unit_height", "fold_batchnorm",
                                      "fuse_layer_norm", "fuse_attention", "fuse_epilogues", "fuse_elementwise",
                                      "fuse_dense_activation", "pack_dense_weights", "plan_layouts"}));
}

TEST(GraphIr, ShapeErrorsNameTheNode) {
  Graph g;
  g.set_value(Value{"a", DType::Float32, {2, 3}, nullptr});
  g.set_value(Value{"b", DType::Float32, {4, 3}, nullptr});
  g.inputs = {"a", "b"};
  g.nodes = {node("Add", {"a", "b"}, {"y"})};
  g.outputs = {"y"};
  try {
    infer_shapes(g);
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'Add_y' (Add): shapes [2,3] and [4,3] do not broadcast"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tf::graph
