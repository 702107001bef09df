// Tensor expressions: what an operator computes, with no word on how.
//
//   Tensor A = placeholder({M, K}, DataType::float32(), "A");
//   IterVar k = reduce_axis(K, "k");
//   Tensor C = compute({M, N}, [&](const Indices& i) { return sum(A(i[0], k) * B(k, i[1]), {k}); }, "C");
//
// A compute's body is an IR expression over its axes; a reduction (sum, max) may only be the whole
// body. How the loops run is the schedule's business (compiler/schedule).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace tf::te {

using ir::DataType;
using ir::Expr;
using ir::IterVar;
using ir::Var;

class Tensor;

class OperationNode : public ir::Producer {
 public:
  OperationNode(std::string name, std::vector<int64_t> shape, DataType dtype)
      : name_(std::move(name)), shape_(std::move(shape)), dtype_(dtype) {}
  const std::string& name() const override { return name_; }
  const std::vector<int64_t>& shape() const override { return shape_; }
  DataType dtype() const override { return dtype_; }
  virtual bool is_placeholder() const = 0;

 private:
  std::string name_;
  std::vector<int64_t> shape_;
  DataType dtype_;
};
using Operation = std::shared_ptr<const OperationNode>;

// An input of the kernel.
class PlaceholderOpNode : public OperationNode {
 public:
  using OperationNode::OperationNode;
  bool is_placeholder() const override { return true; }
};

// out(axis...) = body, where body may be one top-level Reduce over reduce_axis.
class ComputeOpNode : public OperationNode {
 public:
  ComputeOpNode(std::string name, std::vector<IterVar> axis, std::vector<IterVar> reduce_axis, Expr body);
  bool is_placeholder() const override { return false; }
  const std::vector<IterVar> axis;
  const std::vector<IterVar> reduce_axis;
  const Expr body;
};

// The operations whose tensors `body` reads, each once, in first-read order.
std::vector<Operation> read_operations(const Expr& body);

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Operation op) : op_(std::move(op)) {}
  const Operation& op() const { return op_; }
  const std::string& name() const { return op_->name(); }
  const std::vector<int64_t>& shape() const { return op_->shape(); }
  DataType dtype() const { return op_->dtype(); }
  int ndim() const { return static_cast<int>(op_->shape().size()); }
  const ComputeOpNode* compute_op() const { return dynamic_cast<const ComputeOpNode*>(op_.get()); }

  Expr operator()(std::vector<Expr> indices) const;
  template <typename... Args>
  Expr operator()(Args... idx) const {
    return (*this)(std::vector<Expr>{Expr(idx)...});
  }

 private:
  Operation op_;
};

using Indices = std::vector<Expr>;

// Throws tf::CompileError for a non-positive extent, naming the tensor and the dimension.
Tensor placeholder(const std::vector<int64_t>& shape, DataType dtype, const std::string& name);
// axis_names names the loops (default i, j, l, ...), which is what `tunefarm lower` shows.
Tensor compute(const std::vector<int64_t>& shape, const std::function<Expr(const Indices&)>& fn,
               const std::string& name, const std::vector<std::string>& axis_names = {});
IterVar reduce_axis(int64_t extent, const std::string& name);

Expr sum(Expr source, std::vector<IterVar> axes);
Expr max_reduce(Expr source, std::vector<IterVar> axes);

}  // namespace tf::te
