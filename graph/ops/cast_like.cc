// CastLike: a Cast whose target type is its second input's (graph/ops/cast.cc does the rest: the
// types it takes, folding, the kernel or an alias).
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph {

void add_cast_like_ops(std::vector<OpDef>& ops) {
  OpDef d;
  d.name = "CastLike";
  d.versions = {15, 19, 21};
  d.attributes = {"saturate"};
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    const DType to = rules::in(g, n, 1).dtype;
    n.op = "Cast";
    n.attrs.clear();
    n.attrs["to"] = std::string(dtype_name(to));
    n.inputs.resize(1);
    return std::vector<Node>{std::move(n)};
  };
  ops.push_back(d);
}

}  // namespace tf::graph
