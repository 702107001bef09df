#include "compiler/te/tensor.h"

#include <unordered_set>
#include <utility>

#include "compiler/ir/visitor.h"

namespace tf::te {
namespace {

const char* kAxisNames[] = {"i", "j", "l", "m", "n", "o", "p", "q"};

void check_shape(const std::vector<int64_t>& shape, const std::string& name) {
  if (shape.empty()) throw CompileError("tensor '" + name + "': needs at least one dimension");
  int64_t elements = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] <= 0) {
      throw CompileError("tensor '" + name + "': dimension " + std::to_string(d) + " has extent " +
                         std::to_string(shape[d]) + "; extents must be positive");
    }
    // 2^40 elements: far beyond any board's memory, and safely inside int64 index arithmetic.
    if (shape[d] > (int64_t{1} << 40) / elements) {
      throw CompileError("tensor '" + name + "': " + std::to_string(shape[d]) + " in dimension " + std::to_string(d) +
                         " makes it larger than 2^40 elements");
    }
    elements *= shape[d];
  }
}

class ReadCollector : public ir::IRVisitor {
 public:
  using ir::IRVisitor::visit;
  std::vector<Operation> ops;

 protected:
  void visit(const ir::TensorLoadNode* n) override {
    auto op = std::dynamic_pointer_cast<const OperationNode>(n->producer);
    if (op && seen_.insert(op.get()).second) ops.push_back(op);
    ir::IRVisitor::visit(n);
  }

 private:
  std::unordered_set<const OperationNode*> seen_;
};

}  // namespace

ComputeOpNode::ComputeOpNode(std::string name, std::vector<IterVar> ax, std::vector<IterVar> rax, Expr b)
    : OperationNode(
          std::move(name),
          [&] {
            std::vector<int64_t> s;
            s.reserve(ax.size());
            for (const auto& a : ax) s.push_back(a->extent);
            return s;
          }(),
          b.type()),
      axis(std::move(ax)),
      reduce_axis(std::move(rax)),
      body(std::move(b)) {}

std::vector<Operation> read_operations(const Expr& body) {
  ReadCollector c;
  c.visit(body);
  return std::move(c.ops);
}

Expr Tensor::operator()(std::vector<Expr> indices) const {
  if (!op_) throw CompileError("indexing an undefined tensor");
  return ir::make_tensor_load(op_, std::move(indices));
}

Tensor placeholder(const std::vector<int64_t>& shape, DataType dtype, const std::string& name) {
  check_shape(shape, name);
  return Tensor(std::make_shared<const PlaceholderOpNode>(name, shape, dtype));
}

Tensor compute(const std::vector<int64_t>& shape, const std::function<Expr(const Indices&)>& fn,
               const std::string& name, const std::vector<std::string>& axis_names) {
  check_shape(shape, name);
  std::vector<IterVar> axis;
  Indices idx;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string axis_name = d < axis_names.size()       ? axis_names[d]
                            : d < std::size(kAxisNames) ? kAxisNames[d]
                                                        : "ax" + std::to_string(d);
    axis.push_back(ir::make_iter_var(axis_name, 0, shape[d], ir::IterKind::DataPar));
    idx.push_back(ir::to_expr(axis.back()->var));
  }
  Expr body = fn(idx);
  if (!body) throw CompileError("compute '" + name + "': the index function returned no expression");
  std::vector<IterVar> reduce;
  if (auto* r = body.as<ir::ReduceNode>()) reduce = r->axes;
  // A Reduce anywhere but the top would need its own loop nest in the middle of an expression.
  class NestedReduceCheck : public ir::IRVisitor {
   public:
    using ir::IRVisitor::visit;
    bool found = false;

   protected:
    void visit(const ir::ReduceNode* n) override { found = true; }
  };
  NestedReduceCheck check;
  if (auto* r = body.as<ir::ReduceNode>())
    check.visit(r->source);
  else
    check.visit(body);
  if (check.found) {
    throw CompileError("compute '" + name +
                       "': a reduction must be the whole body, not part of it; "
                       "compute the reduction as its own tensor and combine in a second compute");
  }
  return Tensor(std::make_shared<const ComputeOpNode>(name, std::move(axis), std::move(reduce), std::move(body)));
}

IterVar reduce_axis(int64_t extent, const std::string& name) {
  return ir::make_iter_var(name, 0, extent, ir::IterKind::Reduce);
}

Expr sum(Expr source, std::vector<IterVar> axes) {
  return ir::make_reduce(ir::ReduceKind::Sum, std::move(source), std::move(axes));
}

Expr max_reduce(Expr source, std::vector<IterVar> axes) {
  return ir::make_reduce(ir::ReduceKind::Max, std::move(source), std::move(axes));
}

}  // namespace tf::te
