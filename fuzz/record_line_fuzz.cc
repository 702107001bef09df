// One line of a `tunefarm import` file (tuner/record_line.h): read, then checked against the op, the
// shape, the target, the config space and the timings. A bad line is a verdict with a reason, never
// an exception.
#include "fuzz/fuzz_check.h"
#include "tuner/record_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  fuzz::expect_refusal_or_success<fuzz::NothingDocumented>([&] {
    // A checker per line: its cache of tasks would otherwise grow over millions of inputs.
    tuner::RecordChecker checker;
    const tuner::RecordLine line = tuner::read_record_line(fuzz::as_text(data, size), checker);
    const bool refused =
        line.verdict == tuner::RecordLine::Verdict::Unreadable || line.verdict == tuner::RecordLine::Verdict::Refused;
    if (refused && line.why.empty()) fuzz::finding("a record line refused without a reason");
  });
  return 0;
}
