// An ONNX model file (graph/onnx_import.h): imported into the graph IR with shapes inferred and
// constants folded. Whatever is refused - not a model, an op, an attribute, a shape - is a
// CompileError naming the node; garbage is never a crash.
#include "compiler/error.h"
#include "fuzz/fuzz_check.h"
#include "graph/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  fuzz::expect_refusal_or_success<CompileError>(
      [&] { graph::import_onnx_bytes(fuzz::as_text(data, size), "fuzz.onnx"); });
  return 0;
}
