// The standard conv2d workloads (../shared/workloads/conv2d.json) as tunefarm workloads: each named
// entry becomes the operators that can run it (the plain NCHW `conv2d`, the blocked NCHWc
// `conv2d_nchwc` or `depthwise_nchwc`, and for 3x3 stride-1 layers `conv2d_winograd_nchwc`) with
// the shape text `tunefarm run --op OP --shape SHAPE` takes. Whether a blocked operator exists in this build is the
// caller's question: the mapping only names it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/conv2d_shape.h"
#include "support/json.h"

namespace tf::bench {

// One way of running a workload: which operator, with which shape text.
struct Conv2dVariant {
  std::string variant;  // "plain", "blocked", or "winograd-m2" / "-m4" / "-m6"
  std::string op;       // conv2d, conv2d_nchwc, depthwise_nchwc, conv2d_winograd_nchwc
  std::string shape;    // named extents, e.g. "n=1,c=64,h=56,w=56,k=64,r=3,s=3,stride=1,pad=1"
};

struct Conv2dWorkload {
  std::string name;                     // the file's stable name, e.g. "resnet18-c2"
  ops::Conv2dShape shape;               // its flops() is the file's formula, 2*N*OC*OH*OW*(IC/groups)*KH*KW
  std::vector<Conv2dVariant> variants;  // plain first
  // The model a workload belongs to: its name up to the first '-' ("resnet18", "mobilenet").
  std::string model() const;
};

// Channel block of the blocked variants: ib/ob of conv2d_nchwc, b of depthwise_nchwc.
inline constexpr int64_t kConv2dChannelBlock = 16;
// The Winograd variants of a 3x3 stride-1 layer (conv2d_winograd_nchwc, blocked like the blocked
// variant, with output tile m): "winograd-m2", "winograd-m4", "winograd-m6".
inline constexpr int64_t kWinogradTiles[] = {2, 4, 6};
std::string winograd_variant(int64_t m);

// The file's entries in its order. Throws UsageError naming the entry (by index and name) and the
// field when an entry lacks a field, has one the format does not know, a value of the wrong type
// or a shape that makes no sense; and when two entries share a name.
std::vector<Conv2dWorkload> conv2d_workloads_from_json(const Json& file, const std::string& where);
std::vector<Conv2dWorkload> load_conv2d_workloads(const std::string& path);

// $TUNEFARM_SHARED_DIR/workloads/conv2d.json when that is set (a worktree outside the project's
// usual place), else ../shared/workloads/conv2d.json beside the source tree.
std::string default_conv2d_workloads_path(const std::string& source_dir);

// The workloads named in `names` (comma-separated; none named: all), in the order named. Throws
// UsageError naming an unknown one and listing the known.
std::vector<Conv2dWorkload> select_conv2d_workloads(const std::vector<Conv2dWorkload>& all, const std::string& names);

}  // namespace tf::bench
