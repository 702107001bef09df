#include "graph/ops/lowering.h"

#include <algorithm>

#include "compiler/error.h"
#include "compiler/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph::lowering {

std::shared_ptr<const ops::Operator> registry_op(const std::string& name) {
  // The call shares the registry's operator without owning it.
  return std::shared_ptr<const ops::Operator>(&ops::find_operator(name), [](const ops::Operator*) {});
}

KernelCall make_call(const Node& n, std::shared_ptr<const ops::Operator> op, std::vector<int64_t> shape,
                     std::vector<std::string> args) {
  try {
    op->check_shape(shape);
  } catch (const CompileError& e) {
    rules::fail(n, std::string("not a valid ") + op->name() + " workload: " + e.what());
  }
  KernelCall c;
  c.arg_shapes = op->input_shapes(shape);
  c.arg_shapes.push_back(op->output_shape(shape));
  c.op = std::move(op);
  c.shape = std::move(shape);
  c.args = std::move(args);
  return c;
}

KernelCall named_call(const Node& n, const std::string& op, const Named& named, std::vector<std::string> args) {
  auto o = registry_op(op);
  return make_call(n, o, o->shape_from_named(named), std::move(args));
}

std::vector<std::string> with_output(std::vector<std::string> inputs, const Node& n) {
  inputs.push_back(n.outputs.at(0));
  return inputs;
}

NodeLowering call(KernelCall c) {
  NodeLowering l;
  l.call = std::move(c);
  return l;
}

NodeLowering alias(const std::string& of) {
  NodeLowering l;
  l.alias_of = of;
  return l;
}

int64_t leading_product(const Shape& s, size_t drop_last) {
  return element_count(Shape(s.begin(), s.end() - static_cast<std::ptrdiff_t>(std::min(drop_last, s.size()))));
}

}  // namespace tf::graph::lowering
