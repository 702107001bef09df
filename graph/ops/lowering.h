// Building a node's kernel call: a compiler/ops registry operator (or one the model built) on
// extents given positionally or by name, and the node's values as arguments.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/kernel_calls.h"

namespace tf::graph::lowering {

using Named = std::map<std::string, int64_t>;

// A compiler/ops registry operator (registry operators live as long as the process).
std::shared_ptr<const ops::Operator> registry_op(const std::string& name);
// A call whose argument views come from the op: its input shapes, then its output shape. An
// invalid workload is a CompileError naming the node.
KernelCall make_call(const Node& n, std::shared_ptr<const ops::Operator> op, std::vector<int64_t> shape,
                     std::vector<std::string> args);
KernelCall named_call(const Node& n, const std::string& op, const Named& named, std::vector<std::string> args);
std::vector<std::string> with_output(std::vector<std::string> inputs, const Node& n);

NodeLowering call(KernelCall c);
NodeLowering alias(const std::string& of);

// The extents before the last `drop_last` ones, multiplied: the rows a kernel sees.
int64_t leading_product(const Shape& s, size_t drop_last);

}  // namespace tf::graph::lowering
