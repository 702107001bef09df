// A compiled model (.tfm) as `tunefarm model run` and a board read it (runtime/model/model_file.h):
// the header's sizes against the file, the manifest's JSON, its sections, values and steps. The
// kernels are not loaded: dlopen would run their code, which a .tfm holds by design. Refusals are
// ModelFileError naming the field.
#include <sstream>

#include "fuzz/fuzz_check.h"
#include "runtime/model/model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf::runtime::model;
  tf::fuzz::expect_refusal_or_success<ModelFileError>([&] {
    std::istringstream in(tf::fuzz::as_text(data, size));
    const ModelFile m = read_model_file(in, size, "fuzz.tfm");
    // What was accepted copied no more bytes than the file holds.
    uint64_t copied = m.constants.size();
    for (const Kernel& k : m.kernels) copied += k.library.size();
    if (copied > size)
      tf::fuzz::finding("the sections copied " + std::to_string(copied) + " bytes of a " + std::to_string(size) +
                        "-byte file");
  });
  return 0;
}
