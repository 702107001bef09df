// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss as the ops they are made of, so each part
// runs as a kernel the graph already lowers. For input [N,C,d1..dk] and target [N,d1..dk]:
//
//   log_prob  LogSoftmax(scores, axis 1)                          (SoftmaxCrossEntropyLoss only)
//   ignored   Equal(target, ignore_index)                         (with ignore_index)
//   safe      Where(ignored, 0, target): an ignored target may lie outside 0..C-1
//   picked    GatherElements(input, safe as [N,1,d..], axis 1), seen as target's shape
//   w         Gather(weight, safe) or 1, zero where ignored
//   loss      -picked * w
//   reduced   none: loss; sum: ReduceSum(loss); mean: ReduceSum(loss) / ReduceSum(w), or
//             ReduceMean(loss) when there is neither a weight nor an ignore_index
//
// ONNX's weighted mean divides by the weights of the targets counted, not by their number. The
// gathers index with float32 (graph/ops/data_movement.cc), so the safe target goes through a Cast.
#include <map>
#include <optional>

#include "graph/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using rules::fail;

using rules::Steps;

std::vector<int64_t> all_axes(size_t rank) {
  std::vector<int64_t> axes;
  for (size_t a = 0; a < rank; ++a) axes.push_back(static_cast<int64_t>(a));
  return axes;
}

// Input [N,C,d1..dk] float32, target [N,d1..dk] int64 or int32, weight [C] float32.
void check_shapes(const Graph& g, const Node& n, bool has_weight) {
  const Value& x = rules::in(g, n, 0);
  const Value& t = rules::in(g, n, 1);
  if (x.dtype != DType::Float32)
    fail(n, "input '" + x.name + "' is " + dtype_name(x.dtype) + "; the loss kernels take float32");
  if (t.dtype != DType::Int64 && t.dtype != DType::Int32)
    fail(n, "target '" + t.name + "' is " + dtype_name(t.dtype) + "; ONNX takes int64 or int32");
  if (x.shape.size() < 2)
    fail(n, "input '" + x.name + "' " + shape_str(x.shape) + " has rank below 2 ([N, C, d1, ...])");
  Shape want = {x.shape[0]};
  want.insert(want.end(), x.shape.begin() + 2, x.shape.end());
  if (t.shape != want)
    fail(n, "target '" + t.name + "' " + shape_str(t.shape) + " is not input " + shape_str(x.shape) +
                " without its class axis");
  if (has_weight) {
    const Value& w = rules::in(g, n, 2);
    if (w.dtype != DType::Float32)
      fail(n, "weight '" + w.name + "' is " + dtype_name(w.dtype) + "; the loss kernels take float32");
    if (w.shape != Shape{x.shape[1]})
      fail(n, "weight '" + w.name + "' " + shape_str(w.shape) + " is not [C] = [" + std::to_string(x.shape[1]) + "]");
  }
}

std::vector<Node> normalize_loss(Graph& g, Node n, bool softmax) {
  const bool has_weight = g.input_present(n, 2);
  check_shapes(g, n, has_weight);
  const std::string reduction = n.attr_string("reduction", "mean");
  const Shape x = rules::in(g, n, 0).shape;
  const Value& target = rules::in(g, n, 1);
  const Shape t = target.shape;
  const DType tt = target.dtype;
  Steps s(g, n);
  std::string input = n.inputs[0];
  if (softmax) {
    const std::string log_prob = n.outputs.size() > 1 ? n.outputs[1] : "";
    input = s.add("LogSoftmax", {input}, "log_prob", {{"axis", int64_t{1}}}, log_prob);
  }
  std::optional<std::string> ignored;
  std::string safe = n.inputs[1];
  if (n.has("ignore_index")) {
    ignored = s.add("Equal", {safe, s.scalar("ignore_index", static_cast<double>(n.attr_int("ignore_index", 0)), tt)},
                    "ignored");
    safe = s.add("Where", {*ignored, s.scalar("zero_index", 0, tt), safe}, "safe_target");
  }
  const std::string index = s.add("Cast", {safe}, "index", {{"to", std::string("float32")}});
  Shape column = t;
  column.insert(column.begin() + 1, 1);
  const std::string column_index = s.add("Reshape", {index, s.shape("column_shape", column)}, "column_index");
  const std::string picked = s.add("GatherElements", {input, column_index}, "picked", {{"axis", int64_t{1}}});
  const std::string flat = s.add("Reshape", {picked, s.shape("target_shape", t)}, "picked_flat");
  std::optional<std::string> weight;
  if (has_weight) weight = s.add("Gather", {n.inputs[2], index}, "weight_of_target", {{"axis", int64_t{0}}});
  if (ignored)
    weight = s.add(
        "Where", {*ignored, s.scalar("zero", 0, DType::Float32), weight ? *weight : s.scalar("one", 1, DType::Float32)},
        "counted");
  // Without a reduction the last elementwise node writes the loss output itself.
  const std::string out = n.outputs[0];
  const bool none = reduction == "none";
  std::string loss = s.add("Neg", {flat}, "negated", {}, none && !weight ? out : "");
  if (weight) loss = s.add("Mul", {loss, *weight}, "weighted", {}, none ? out : "");
  const std::map<std::string, Attribute> everything = {{"axes", all_axes(t.size())}, {"keepdims", int64_t{0}}};
  if (reduction == "sum") {
    s.add("ReduceSum", {loss}, "sum", everything, out);
  } else if (reduction == "mean" && weight) {
    s.add("Div",
          {s.add("ReduceSum", {loss}, "sum", everything), s.add("ReduceSum", {*weight}, "weight_sum", everything)},
          "mean", {}, out);
  } else if (reduction == "mean") {
    s.add("ReduceMean", {loss}, "mean", everything, out);
  }
  return s.take();
}

std::optional<std::string> check_loss(const Node& n, size_t outputs, const std::string& extra) {
  const std::string r = n.attr_string("reduction", "mean");
  if (r != "none" && r != "sum" && r != "mean")
    return "attribute 'reduction' = '" + r + "' is not one of none, sum, mean";
  return rules::extra_output(n, outputs, extra);
}

OpDef loss_op(const std::string& name, bool softmax) {
  OpDef d;
  d.name = name;
  d.versions = {12, 13};
  d.attributes = {"reduction", "ignore_index"};
  d.check = [softmax](const Node& n, const OpVersion&) { return check_loss(n, softmax ? 2 : 1, "log_prob"); };
  d.normalize = [softmax](Graph& g, Node n, const OpVersion&) { return normalize_loss(g, std::move(n), softmax); };
  return d;
}

}  // namespace

void add_loss_ops(std::vector<OpDef>& ops) {
  ops.push_back(loss_op("NegativeLogLikelihoodLoss", false));
  ops.push_back(loss_op("SoftmaxCrossEntropyLoss", true));
}

}  // namespace tf::graph
