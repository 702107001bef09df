#include "runtime/worker_protocol.h"

#include <cstring>
#include <stdexcept>

#include "runtime/timing_check.h"
#include "runtime/wire.h"

namespace tf::runtime::worker_protocol {
namespace {

// A successful result that fails `problem` becomes a RuntimeError saying why, without timings.
MeasureResult refuse_if(MeasureResult m, const std::string& problem) {
  if (m.status != MeasureStatus::Ok || problem.empty()) return m;
  m.status = MeasureStatus::RuntimeError;
  m.error = "the measurement produced an unusable timing: " + problem;
  m.costs.clear();
  return m;
}

MeasureResult decode_unchecked(const std::vector<uint8_t>& b) {
  wire::Reader r(b.data(), b.size());
  MeasureResult m;
  m.status = static_cast<MeasureStatus>(r.i32());
  m.error = r.str();
  m.number = r.i32();
  const uint32_t n = r.u32();
  if (n > static_cast<uint32_t>(kMaxRepeat)) throw std::runtime_error("result: " + std::to_string(n) + " timings");
  for (uint32_t i = 0; i < n; ++i) m.costs.push_back(r.f64());
  return m;
}

}  // namespace

std::vector<uint8_t> encode_setup(const WorkloadSetup& s) {
  wire::Writer w;
  w.u32(static_cast<uint32_t>(s.args.size()));
  for (const auto& a : s.args) {
    w.u32(static_cast<uint32_t>(a.shape.size()));
    for (int64_t d : a.shape) w.i64(d);
    w.i32(a.dtype_code);
    w.i32(a.dtype_bits);
    w.f64(a.fill.low);
    w.f64(a.fill.high);
  }
  w.i32(s.num_inputs);
  w.u64(s.seed);
  w.blob(s.expected.data(), s.expected.size() * sizeof(float));
  w.blob(s.tolerance.data(), s.tolerance.size() * sizeof(float));
  return w.bytes();
}

WorkloadSetup decode_setup(const std::vector<uint8_t>& b) {
  wire::Reader r(b.data(), b.size());
  WorkloadSetup s;
  const uint32_t n = r.u32();
  if (n > 64) throw std::runtime_error("setup: too many arguments");
  for (uint32_t i = 0; i < n; ++i) {
    TensorSpec t;
    const uint32_t ndim = r.u32();
    if (ndim > 8) throw std::runtime_error("setup: too many dimensions");
    for (uint32_t d = 0; d < ndim; ++d) t.shape.push_back(r.i64());
    t.dtype_code = r.i32();
    t.dtype_bits = r.i32();
    t.fill.low = r.f64();
    t.fill.high = r.f64();
    s.args.push_back(t);
  }
  s.num_inputs = r.i32();
  s.seed = r.u64();
  size_t bytes = 0;
  const uint8_t* p = r.blob(&bytes);
  s.expected.resize(bytes / sizeof(float));
  // An empty vector's data() may be null, which memcpy must never get, even for 0 bytes.
  if (!s.expected.empty()) std::memcpy(s.expected.data(), p, s.expected.size() * sizeof(float));
  p = r.blob(&bytes);
  s.tolerance.resize(bytes / sizeof(float));
  if (!s.tolerance.empty()) std::memcpy(s.tolerance.data(), p, s.tolerance.size() * sizeof(float));
  try {
    check_workload_args(s);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("setup: ") + e.what());
  }
  return s;
}

std::vector<uint8_t> encode_measure(const std::vector<uint8_t>& library, const std::string& entry,
                                    const MeasureOptions& o) {
  wire::Writer w;
  w.blob(library.data(), library.size());
  w.str(entry);
  w.i32(o.repeat);
  w.i32(o.number);
  w.f64(o.min_repeat_ms);
  w.i32(o.flush_cache ? 1 : 0);
  w.f64(o.cooldown_ms);
  w.f64(o.timeout_s);
  w.str(o.timing_lock);
  w.i32(static_cast<int32_t>(o.cold_inputs));
  return w.bytes();
}

void decode_measure(const std::vector<uint8_t>& b, std::vector<uint8_t>* library, std::string* entry,
                    MeasureOptions* o) {
  wire::Reader r(b.data(), b.size());
  size_t n = 0;
  const uint8_t* p = r.blob(&n);
  library->assign(p, p + n);
  *entry = r.str();
  o->repeat = r.i32();
  o->number = r.i32();
  o->min_repeat_ms = r.f64();
  o->flush_cache = r.i32() != 0;
  o->cooldown_ms = r.f64();
  o->timeout_s = r.f64();
  o->timing_lock = r.str();
  // An unknown mode is kept as sent: measure_options_error names it.
  o->cold_inputs = static_cast<ColdInputs>(r.i32());
}

std::vector<uint8_t> encode_result(const MeasureResult& m) {
  wire::Writer w;
  w.i32(static_cast<int32_t>(m.status));
  w.str(m.error);
  w.i32(m.number);
  w.u32(static_cast<uint32_t>(m.costs.size()));
  for (double c : m.costs) w.f64(c);
  return w.bytes();
}

MeasureResult decode_result(const std::vector<uint8_t>& b) {
  MeasureResult m = decode_unchecked(b);
  return refuse_if(m, timing_problem(m.costs));
}

MeasureResult decode_result(const std::vector<uint8_t>& b, const MeasureOptions& asked) {
  MeasureResult m = decode_unchecked(b);
  return refuse_if(m, result_problem(m, asked));
}

}  // namespace tf::runtime::worker_protocol
