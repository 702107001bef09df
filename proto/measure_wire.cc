#include "proto/measure_wire.h"

#include <cstring>
#include <stdexcept>

namespace tf::fleet {
namespace {

std::string floats_to_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

std::vector<float> bytes_to_floats(const std::string& b, const char* what) {
  if (b.size() % sizeof(float) != 0)
    throw std::invalid_argument(std::string("reference: ") + what + " is not a whole number of floats");
  std::vector<float> v(b.size() / sizeof(float));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

}  // namespace

v1::TensorSpec to_wire(const runtime::TensorSpec& t) {
  v1::TensorSpec w;
  for (int64_t d : t.shape) w.add_shape(d);
  w.set_dtype_code(t.dtype_code);
  w.set_dtype_bits(t.dtype_bits);
  w.set_fill_low(t.fill.low);
  w.set_fill_high(t.fill.high);
  return w;
}

runtime::TensorSpec from_wire(const v1::TensorSpec& w) {
  runtime::TensorSpec t;
  t.shape.assign(w.shape().begin(), w.shape().end());
  t.dtype_code = w.dtype_code();
  t.dtype_bits = w.dtype_bits();
  t.fill = {w.fill_low(), w.fill_high()};
  return t;
}

v1::Reference to_wire(const runtime::WorkloadSetup& s, uint64_t reference_id) {
  v1::Reference r;
  r.set_reference_id(reference_id);
  for (const auto& a : s.args) *r.add_args() = to_wire(a);
  r.set_num_inputs(s.num_inputs);
  r.set_seed(s.seed);
  r.set_expected(floats_to_bytes(s.expected));
  r.set_tolerance(floats_to_bytes(s.tolerance));
  return r;
}

runtime::WorkloadSetup from_wire(const v1::Reference& r) {
  runtime::WorkloadSetup s;
  if (r.args_size() == 0 || r.args_size() > 64) throw std::invalid_argument("reference: needs 1 to 64 arguments");
  for (const auto& a : r.args()) {
    if (a.shape_size() > 8) throw std::invalid_argument("reference: an argument has more than 8 dimensions");
    for (int64_t d : a.shape()) {
      if (d <= 0 || d > (int64_t{1} << 32)) throw std::invalid_argument("reference: an extent is out of range");
    }
    s.args.push_back(from_wire(a));
  }
  if (r.num_inputs() < 0 || r.num_inputs() >= r.args_size())
    throw std::invalid_argument("reference: bad number of inputs");
  s.num_inputs = r.num_inputs();
  s.seed = r.seed();
  s.expected = bytes_to_floats(r.expected(), "expected");
  s.tolerance = bytes_to_floats(r.tolerance(), "tolerance");
  try {
    runtime::check_workload_args(s);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("reference: ") + e.what());
  }
  return s;
}

v1::MeasureOptions to_wire(const runtime::MeasureOptions& o) {
  v1::MeasureOptions w;
  w.set_repeat(o.repeat);
  w.set_number(o.number);
  w.set_min_repeat_ms(o.min_repeat_ms);
  w.set_flush_cache(o.flush_cache);
  w.set_cooldown_ms(o.cooldown_ms);
  w.set_timeout_s(o.timeout_s);
  w.set_cold_inputs(to_wire(o.cold_inputs));
  return w;
}

v1::ColdInputs to_wire(runtime::ColdInputs c) {
  switch (c) {
    case runtime::ColdInputs::Off: return v1::COLD_INPUTS_OFF;
    case runtime::ColdInputs::Weights: return v1::COLD_INPUTS_WEIGHTS;
    case runtime::ColdInputs::All: return v1::COLD_INPUTS_ALL;
  }
  return static_cast<v1::ColdInputs>(static_cast<int>(c) + 1);
}

runtime::ColdInputs from_wire(v1::ColdInputs c) {
  switch (c) {
    case v1::COLD_INPUTS_UNSPECIFIED:
    case v1::COLD_INPUTS_OFF: return runtime::ColdInputs::Off;
    case v1::COLD_INPUTS_WEIGHTS: return runtime::ColdInputs::Weights;
    case v1::COLD_INPUTS_ALL: return runtime::ColdInputs::All;
    default: break;
  }
  return static_cast<runtime::ColdInputs>(static_cast<int>(c) - 1);
}

runtime::MeasureOptions from_wire(const v1::MeasureOptions& w) {
  runtime::MeasureOptions o;
  // Zero means the default; anything else is kept as sent, so that measure_options_error sees a
  // negative or NaN value instead of a silent default.
  if (w.repeat() != 0) o.repeat = w.repeat();
  if (w.number() != 0) o.number = w.number();
  if (w.min_repeat_ms() != 0) o.min_repeat_ms = w.min_repeat_ms();
  o.flush_cache = w.flush_cache();
  if (w.cooldown_ms() != 0) o.cooldown_ms = w.cooldown_ms();
  if (w.timeout_s() != 0) o.timeout_s = w.timeout_s();
  o.cold_inputs = from_wire(w.cold_inputs());
  return o;
}

v1::MeasureStatus to_wire(runtime::MeasureStatus s) {
  switch (s) {
    case runtime::MeasureStatus::Ok: return v1::MEASURE_OK;
    case runtime::MeasureStatus::LoadError: return v1::MEASURE_LOAD_ERROR;
    case runtime::MeasureStatus::RuntimeError: return v1::MEASURE_RUNTIME_ERROR;
    case runtime::MeasureStatus::Timeout: return v1::MEASURE_TIMEOUT;
    case runtime::MeasureStatus::WrongAnswer: return v1::MEASURE_WRONG_ANSWER;
  }
  return v1::MEASURE_RUNTIME_ERROR;
}

runtime::MeasureStatus from_wire(v1::MeasureStatus s) {
  switch (s) {
    case v1::MEASURE_OK: return runtime::MeasureStatus::Ok;
    case v1::MEASURE_LOAD_ERROR: return runtime::MeasureStatus::LoadError;
    case v1::MEASURE_TIMEOUT: return runtime::MeasureStatus::Timeout;
    case v1::MEASURE_WRONG_ANSWER: return runtime::MeasureStatus::WrongAnswer;
    default: return runtime::MeasureStatus::RuntimeError;
  }
}

}  // namespace tf::fleet
