// A graph constant (Tensor) as the executor takes and gives tensors (HostTensor), and back: how an
// ONNX test's inputs feed a compiled model and its outputs meet the expected ones.
#pragma once

#include "graph/graph.h"
#include "support/host_tensor.h"

namespace tf::graph {

// CompileError when the tensor holds another count of values than its shape.
HostTensor to_host_tensor(const Tensor& t);
Tensor from_host_tensor(const HostTensor& t);

}  // namespace tf::graph
