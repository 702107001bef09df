// The frames between a measuring parent and its worker process (runtime/wire.h,
// runtime/measure_worker.h): read off a pipe as the worker reads its stdin, then decoded by kind,
// as both sides do. Refusals are std::runtime_error ("truncated message", ...).
#include <unistd.h>

#include <stdexcept>

#include "fuzz/fuzz_check.h"
#include "runtime/measure_worker.h"
#include "runtime/wire.h"

namespace {

using namespace tf::runtime;

void decode(uint32_t kind, const std::vector<uint8_t>& payload) {
  switch (kind) {
    case worker_protocol::kSetup: worker_protocol::decode_setup(payload); break;
    case worker_protocol::kMeasure: {
      std::vector<uint8_t> library;
      std::string entry;
      MeasureOptions options;
      worker_protocol::decode_measure(payload, &library, &entry, &options);
      break;
    }
    case worker_protocol::kResult: {
      const MeasureResult r = worker_protocol::decode_result(payload);
      if (r.status == MeasureStatus::Ok && r.costs.empty() && r.error.empty()) {
        tf::fuzz::finding("decode_result: an Ok result without timings");
      }
      break;
    }
    default: break;  // the lock notices carry nothing; other kinds end the worker
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // libFuzzer's inputs stay far below a pipe's buffer (64 KiB), so one write never blocks.
  if (size > 60000) return 0;
  int fds[2];
  if (::pipe(fds) != 0) tf::fuzz::finding("pipe() failed");
  const bool written = size == 0 || ::write(fds[1], data, size) == static_cast<ssize_t>(size);
  ::close(fds[1]);
  if (!written) tf::fuzz::finding("write to the pipe failed");
  uint32_t kind = 0;
  std::vector<uint8_t> payload;
  // Frames follow one another until the bytes run out, as on the worker's stdin.
  while (wire::read_frame(fds[0], &kind, &payload)) {
    tf::fuzz::expect_refusal_or_success<std::runtime_error>([&] { decode(kind, payload); });
  }
  ::close(fds[0]);
  return 0;
}
