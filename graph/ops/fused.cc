// The fused elementwise chain fuse_elementwise makes: its body's ops build one expression.
// (The blocked-layout nodes plan_layouts makes carry their workload and need no entry.)
#include "graph/ops/elementwise.h"

namespace tf::graph {

void add_fused_ops(std::vector<OpDef>& ops) {
  OpDef d;
  d.name = kFusedElementwise;
  d.lower = elementwise::lower;
  ops.push_back(d);
}

}  // namespace tf::graph
