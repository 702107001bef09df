// The messages between a measuring parent and its worker process (runtime/measure_worker.h), in the
// runtime's own encoding (runtime/wire.h): no protobuf, so the worker links only the runtime.
//
// One measurement is: the parent sends kMeasure; the worker answers kLockWaiting, then kLockHeld
// once it holds the host-wide timing lock, and only then loads the kernel, checks and times it,
// and answers kResult. The lock frames come before any of the kernel's code runs, so the parent
// can refuse every lock frame after them: a kernel writing to its own pipe cannot stop the
// parent's clock by claiming to wait for the lock. kSandboxViolation (the call's number, then its
// name) is the worker's last word when a kernel tried a forbidden call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/measure.h"

namespace tf::runtime::worker_protocol {

enum Kind : uint32_t { kSetup = 1, kMeasure = 2, kResult = 3, kLockWaiting = 4, kLockHeld = 5, kSandboxViolation = 6 };

// The largest frame a parent reads from a worker: a result holds at most kMaxRepeat timings and an
// error message. A worker is where foreign code runs; what it sends is bounded before it is read.
constexpr uint64_t kMaxWorkerFrameBytes = uint64_t{1} << 20;

std::vector<uint8_t> encode_setup(const WorkloadSetup& s);
WorkloadSetup decode_setup(const std::vector<uint8_t>& b);
std::vector<uint8_t> encode_measure(const std::vector<uint8_t>& library, const std::string& entry,
                                    const MeasureOptions& o);
void decode_measure(const std::vector<uint8_t>& b, std::vector<uint8_t>* library, std::string* entry,
                    MeasureOptions* o);
std::vector<uint8_t> encode_result(const MeasureResult& r);
// A successful result whose timings fail runtime/timing_check.h decodes as a RuntimeError saying so.
MeasureResult decode_result(const std::vector<uint8_t>& b);
// The same, checked against the options it was measured with (runtime/timing_check.h).
MeasureResult decode_result(const std::vector<uint8_t>& b, const MeasureOptions& asked);

}  // namespace tf::runtime::worker_protocol
