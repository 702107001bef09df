#include "runtime/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/aligned_buffer.h"
#include "runtime/cold_inputs.h"
#include "runtime/random_fill.h"

namespace tf::runtime {
namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

const char* measure_status_name(MeasureStatus s) {
  switch (s) {
    case MeasureStatus::Ok: return "ok";
    case MeasureStatus::LoadError: return "compile_error";
    case MeasureStatus::RuntimeError: return "runtime_error";
    case MeasureStatus::Timeout: return "timeout";
    case MeasureStatus::WrongAnswer: return "wrong_answer";
  }
  return "unknown";
}

int64_t TensorSpec::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void check_workload_args(const WorkloadSetup& s) {
  if (s.num_inputs < 0 || s.num_inputs >= static_cast<int>(s.args.size()))
    throw std::invalid_argument("bad number of inputs " + std::to_string(s.num_inputs) + " of " +
                                std::to_string(s.args.size()) + " arguments");
  for (size_t i = 0; i < s.args.size(); ++i) {
    const TensorSpec& t = s.args[i];
    const bool input = static_cast<int>(i) < s.num_inputs;
    try {
      check_fill_range(input ? t.fill : default_fill_range(t.dtype_code, t.dtype_bits), t.dtype_code, t.dtype_bits);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("argument " + std::to_string(i) + ": " + e.what());
    }
  }
  const int64_t out_elements = s.args.back().num_elements();
  if (!s.expected.empty() &&
      (static_cast<int64_t>(s.expected.size()) != out_elements || s.tolerance.size() != s.expected.size())) {
    throw std::invalid_argument("expected output and tolerance must match the output's " +
                                std::to_string(out_elements) + " elements");
  }
}

void* KernelBench::allocate(size_t bytes) {
  void* p = allocate_aligned(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

KernelBench::KernelBench(const WorkloadSetup& setup, LastLevelCache llc) : setup_(setup), llc_(std::move(llc)) {
  std::vector<TFBuffer> buffers;
  for (size_t i = 0; i < setup_.args.size(); ++i) {
    const TensorSpec& t = setup_.args[i];
    const size_t bytes = t.bytes();
    void* p = allocate(bytes);
    std::memset(p, 0, bytes);
    if (static_cast<int>(i) < setup_.num_inputs) {
      fill_tensor(p, t.num_elements(), t.dtype_code, t.dtype_bits, t.fill,
                  input_seed(setup_.seed, static_cast<int>(i)));
    }
    data_.push_back(p);
    buffers.push_back(
        TFBuffer{p, setup_.args[i].shape.data(), static_cast<int32_t>(t.shape.size()), t.dtype_code, t.dtype_bits, 0});
  }
  sets_.push_back(std::move(buffers));
}

KernelBench::~KernelBench() {
  for (void* p : data_) std::free(p);
  for (void* p : copies_) std::free(p);
}

void KernelBench::prepare_rotation(ColdInputs mode) {
  if (mode == prepared_) return;
  for (void* p : copies_) std::free(p);
  copies_.clear();
  sets_.resize(1);
  prepared_ = ColdInputs::Off;
  const std::vector<int> rotated = rotated_inputs(setup_, mode);
  uint64_t bytes = 0;
  for (int i : rotated) {
    const TensorSpec& t = setup_.args[static_cast<size_t>(i)];
    bytes += t.bytes();
  }
  const int k = rotated.empty() ? 1 : cold_copies(bytes, llc_);
  for (int copy = 1; copy < k; ++copy) {
    std::vector<TFBuffer> set = sets_.front();
    for (int i : rotated) {
      const TensorSpec& t = setup_.args[static_cast<size_t>(i)];
      const size_t n = t.bytes();
      void* p = allocate(n);
      copies_.push_back(p);
      std::memcpy(p, data_[static_cast<size_t>(i)], n);
      set[static_cast<size_t>(i)].data = p;
    }
    sets_.push_back(std::move(set));
  }
  prepared_ = mode;
}

MeasureResult KernelBench::measure(TFKernelFn fn, const MeasureOptions& opts) {
  MeasureResult r;
  const int32_t nargs = static_cast<int32_t>(sets_.front().size());
  try {
    prepare_rotation(opts.cold_inputs);
  } catch (const std::exception& e) {
    r.status = MeasureStatus::RuntimeError;
    r.error = e.what();
    return r;
  }
  // The first run is the warm-up and the one that is checked.
  const TensorSpec& out = setup_.args.back();
  std::memset(data_.back(), 0, out.bytes());
  const double warm_start = now_s();
  int32_t status = fn(sets_.front().data(), nargs);
  const double warm_s = now_s() - warm_start;
  if (status != TF_OK) {
    r.status = MeasureStatus::RuntimeError;
    r.error = std::string("kernel returned ") + std::to_string(status) + " (" + tf_kernel_status_str(status) + ")";
    return r;
  }
  if (!setup_.expected.empty()) {
    auto got = [&](size_t i) {
      return element_value(data_.back(), out.dtype_code, out.dtype_bits, static_cast<int64_t>(i));
    };
    int64_t bad = 0, first = -1;
    for (size_t i = 0; i < setup_.expected.size(); ++i) {
      if (!matches_reference(got(i), setup_.expected[i], setup_.tolerance[i])) {
        if (first < 0) first = static_cast<int64_t>(i);
        ++bad;
      }
    }
    if (bad > 0) {
      r.status = MeasureStatus::WrongAnswer;
      r.error = std::to_string(bad) + " wrong output elements, first at flat index " + std::to_string(first) +
                ": got " + std::to_string(got(static_cast<size_t>(first))) + ", expected " +
                std::to_string(setup_.expected[static_cast<size_t>(first)]);
      return r;
    }
  }
  {
    int32_t timed_status = TF_OK;
    // Cold: each run takes the next argument set, whose rotated inputs the K-1 runs before it did
    // not touch and K x their bytes have since passed through the caches.
    const size_t k = sets_.size();
    size_t next = k > 1 ? 1 : 0;
    auto time_runs = [&](int number) {
      const double t0 = now_s();
      for (int i = 0; i < number; ++i) {
        timed_status |= fn(sets_[next].data(), nargs);
        next = next + 1 == k ? 0 : next + 1;
      }
      return now_s() - t0;
    };
    int number = opts.number;
    if (number <= 0) {
      // Calibrate on a timing an eighth as long as a repeat, then extrapolate: growing `number`
      // all the way to min_repeat_ms would cost about one more repeat per candidate. The
      // calibrating timing is not kept: it is often slower than the ones after it.
      // A kernel whose warm-up run alone lasts that long needs no calibrating run (slow
      // candidates are common early in a search, and each run of one costs tens of ms).
      const double calibrate_ms = opts.min_repeat_ms / 8;
      number = 1;
      double t = warm_s * 1000 >= calibrate_ms ? warm_s : time_runs(number);
      while (t * 1000 < calibrate_ms && number < kMaxNumber) {
        const double scale = t > 0 ? calibrate_ms / (t * 1000) * 1.2 : 10;
        number =
            static_cast<int>(std::min<double>(kMaxNumber, std::max<double>(number * 2, std::ceil(number * scale))));
        t = time_runs(number);
      }
      if (t * 1000 < opts.min_repeat_ms) {
        const double scale = t > 0 ? opts.min_repeat_ms / (t * 1000) * 1.05 : kMaxNumber;
        number = static_cast<int>(std::min<double>(kMaxNumber, std::ceil(number * scale)));
      }
    }
    r.number = number;
    if (opts.flush_cache && flush_.empty()) flush_.resize(size_t{64} << 20);
    for (int rep = 0; rep < std::max(1, opts.repeat); ++rep) {
      if (opts.flush_cache) std::memset(flush_.data(), rep & 0xff, flush_.size());
      r.costs.push_back(time_runs(number) / number);
    }
    // A kernel that fails only sometimes (an allocation under memory pressure) must not be timed
    // as fast.
    if (timed_status != TF_OK) {
      r.status = MeasureStatus::RuntimeError;
      r.error = "kernel returned an error status during timing";
      r.costs.clear();
      return r;
    }
  }
  return r;
}

}  // namespace tf::runtime
