// A regression suite file (regress/suite.h, docs/ci.md): refused with a SuiteError naming the field.
#include "fuzz/fuzz_check.h"
#include "regress/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  fuzz::expect_refusal_or_success<regress::SuiteError>([&] {
    const regress::Suite suite = regress::parse_suite(fuzz::as_text(data, size), "fuzz.json");
    for (const auto& w : suite.workloads) {
      const double t = suite.threshold_for(w, std::nullopt);
      if (!(t > 0 && t < 1)) fuzz::finding("suite accepted threshold " + std::to_string(t) + " for " + w.name);
    }
  });
  return 0;
}
