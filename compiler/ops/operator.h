// Operator templates: what an operator computes (a tensor expression), the config space of ways to
// schedule it, the schedule a config chooses, and a plain reference to check results against.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/schedule/schedule.h"
#include "compiler/space/config_space.h"
#include "runtime/random_fill.h"

namespace tf::ops {

// An operator applied to concrete extents: "dense" with {M, N, K}.
struct Workload {
  std::string op;
  std::vector<int64_t> shape;
  std::string str() const;  // "dense[512,512,512]": stable, used as a key
};

struct Scheduled {
  std::unique_ptr<schedule::Schedule> schedule;
  std::vector<te::Tensor> inputs;   // in kernel argument order
  std::vector<te::Tensor> outputs;  // after the inputs
};

// The kernel's arguments, the inputs that exist (an op passes a default-constructed tensor for an
// optional input it lacks) then the output, with a schedule over the output.
Scheduled make_scheduled(const std::vector<te::Tensor>& inputs, const te::Tensor& output);

class Operator {
 public:
  virtual ~Operator() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Names of the shape's extents, e.g. {"M", "N", "K"}, in the order of a workload's shape.
  virtual std::vector<std::string> shape_names() const = 0;
  // The positional shape from named extents ("M=512,N=512,K=512" as a map). By default every name
  // of shape_names() is required and no other is known; an op with defaults or aliases (conv2d's
  // pad= for four sides) overrides it. Throws CompileError naming the extent.
  virtual std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const;
  // Throws CompileError naming the extent that makes no sense. By default: every extent positive
  // and not absurdly large.
  virtual void check_shape(const std::vector<int64_t>& shape) const;
  // The shape as a user reads and types it: "512,512,512" by default, named where positions alone
  // would be cryptic ("n=1,c=64,h=56,...").
  virtual std::string shape_text(const std::vector<int64_t>& shape) const;
  virtual int64_t flops(const std::vector<int64_t>& shape) const = 0;
  virtual std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& shape) const = 0;
  virtual std::vector<int64_t> output_shape(const std::vector<int64_t>& shape) const = 0;

  virtual space::ConfigSpace config_space(const std::vector<int64_t>& shape, const codegen::Target& t) const = 0;
  virtual Scheduled schedule(const std::vector<int64_t>& shape, const space::Config& cfg,
                             const codegen::Target& t) const = 0;

  // Computes the output in double precision from float inputs, and per element the bound on the
  // error a correct float32 kernel may have (any summation order, with or without FMA).
  virtual void reference(const std::vector<int64_t>& shape, const std::vector<const float*>& inputs,
                         std::vector<float>* output, std::vector<float>* tolerance) const = 0;

  // The values input `index` (of kernel type `type`) takes when a kernel is checked and timed, the
  // same in the compiler and on a board: runtime::default_fill_range unless the op's arithmetic
  // needs others to be exercised.
  virtual runtime::FillRange input_range(const std::vector<int64_t>& shape, int index, ir::DataType type) const;
};

// Shape-name plumbing for ops whose extents are numbered (an axis or an input each):
// prefix0..prefix{count-1} appended to `names`.
void append_numbered_names(std::vector<std::string>* names, const std::string& prefix, int count);
// Throws CompileError naming the first of `named` that is not one of op's shape_names(), and
// listing them as `extents` (all of them, comma-separated, when empty).
void reject_unknown_extents(const Operator& op, const std::map<std::string, int64_t>& named,
                            const std::string& extents = "");

// Throws tf::CompileError naming the op and listing the known ones.
const Operator& find_operator(const std::string& name);
std::vector<std::string> operator_names();
// Whether the registry has an op of that name (a fused twin a pass may rewrite to).
bool has_operator(const std::string& name);

// Checks the extents for the op (count, then the op's check_shape, then the tensors' total size)
// and throws CompileError naming the extent that is wrong.
void check_workload(const Workload& w);
// The same for an operator that need not be in the registry.
void check_workload(const Operator& op, const std::vector<int64_t>& shape);

// The number of elements of a tensor of these extents (1 for a scalar).
int64_t element_count(const std::vector<int64_t>& extents);

// A shape as typed: comma-separated extents in shape_names() order ("512,512,512") or named ones
// ("n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1"); the op decides defaults. Throws CompileError.
std::vector<int64_t> parse_shape(const std::string& op, const std::string& text);

}  // namespace tf::ops
