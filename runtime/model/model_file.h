// The .tfm file: a compiled model as a board runs it. One file holds the kernels (ELF shared
// libraries, one per distinct kernel), the execution plan (which kernel runs on which buffers, in
// order), the constants (weights packed as their kernels want them) and the memory plan (every
// activation's offset in one arena). Reading it needs only the runtime, never the compiler.
//
// Layout: a 32-byte header (magic "TFMODEL\0", format version, manifest size, payload size), the
// manifest (JSON text), zero padding to 64 bytes, then the payload: kernel libraries and the
// constants, each at a 64-byte aligned offset the manifest gives.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/dtype.h"

namespace tf::runtime::model {

// The format version this runtime writes and reads; a file of another version is refused.
constexpr uint32_t kModelFormatVersion = 1;

class ModelFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a value's bytes live while the model runs.
enum class Storage {
  Arena,     // activations, inputs and outputs: at `offset` in the arena the memory plan sized
  Constant,  // weights: at `offset` in the constants section
};

struct Value {
  std::string name;            // the ONNX tensor's name where there is one
  std::vector<int64_t> shape;  // row-major, dense
  Storage storage = Storage::Arena;
  int64_t offset = 0;  // bytes, TF_BUFFER_ALIGNMENT-aligned
  DType dtype = DType::Float32;

  int64_t elements() const;
  int64_t bytes() const { return elements() * dtype_bytes(dtype); }
};

struct Kernel {
  std::string workload;          // "conv2d_nchwc_bias_relu[...]": what was compiled
  std::string config;            // the config's JSON text, for a reader and for `model bench`
  std::string entry;             // the library's entry symbol
  std::vector<uint8_t> library;  // ELF shared object
};

struct Step {
  int kernel = 0;         // index into kernels
  std::vector<int> args;  // value ids: the kernel's inputs, then its output
  std::string node;       // the graph node (ONNX node name) it computes, for errors and profiles
  // The shape the kernel sees each argument as, where it differs from the value's (a softmax reads
  // [1,12,128,128] as [1536,128]); empty: every value's own. Element counts always agree.
  std::vector<std::vector<int64_t>> shapes;
};

struct ModelFile {
  std::string target;  // the target string the kernels were compiled for
  int threads = 1;     // the thread count the kernels were tuned for (a run may use another)
  std::vector<Value> values;
  std::vector<int> inputs;   // value ids of the model's inputs, in ONNX order
  std::vector<int> outputs;  // value ids of the model's outputs
  std::vector<Kernel> kernels;
  std::vector<Step> steps;
  int64_t arena_bytes = 0;  // peak activation memory
  std::vector<uint8_t> constants;

  // Throws ModelFileError naming what does not hold: value ids in range, offsets aligned and
  // inside their section, every step's kernel known, inputs and outputs in the arena.
  void check() const;
};

// Throws ModelFileError naming the path and the reason. Every size in the header and the manifest
// is checked against the file's own size before anything is allocated.
void write_model_file(const ModelFile& model, const std::string& path);
// The file's bytes (what write_model_file writes), to store elsewhere (a model baseline).
std::vector<uint8_t> model_file_bytes(const ModelFile& model);
ModelFile read_model_file(const std::string& path);
// The same from `in`, which holds `size` bytes; `name` stands for the file in messages.
ModelFile read_model_file(std::istream& in, uint64_t size, const std::string& name);

}  // namespace tf::runtime::model
