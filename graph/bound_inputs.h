// A model's inputs as bound after import (symbolic extents given, batch set): part of what
// identifies a tuned or built model, so commands print and record them the same way.
#pragma once

#include <string>

#include "graph/graph.h"
#include "support/json.h"

namespace tf::graph {

// The shapes of a graph's inputs, in the graph's order: {"image": [1,3,640,640]}.
Json bound_inputs_json(const Graph& g);
// The same as --input-shape takes it: "image=1,3,640,640 mask=1,640".
std::string bound_inputs_text(const Graph& g);

}  // namespace tf::graph
