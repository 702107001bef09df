// A .npy file as `tunefarm model run --input NAME=F.npy` reads it (support/npy.h): the header's
// dict literal, the shape, and the data its shape and dtype need, checked against the file's size.
// Refusals are NpyError naming the file.
#include <sstream>

#include "fuzz/fuzz_check.h"
#include "support/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  fuzz::expect_refusal_or_success<NpyError>([&] {
    std::istringstream in(fuzz::as_text(data, size));
    const HostTensor a = read_npy(in, size, "fuzz.npy");
    // What was accepted holds the elements its shape says, and no more than the file could.
    uint64_t elements = 1;
    for (int64_t d : a.shape) {
      if (d < 0) fuzz::finding("a negative extent was accepted");
      elements *= static_cast<uint64_t>(d);
    }
    const uint64_t bytes = elements * static_cast<uint64_t>(dtype_bytes(a.dtype));
    if (bytes != a.bytes.size() || bytes > size) fuzz::finding("the data does not match the shape or the file");
    if (a.dtype == DType::Bool) {
      for (uint8_t b : a.bytes) {
        if (b > 1) fuzz::finding("a bool other than 0 or 1 was accepted");
      }
    }
  });
  return 0;
}
