// Cold-input timing (runtime/cold_inputs.h): which inputs rotate, how many copies, the memory
// bound, the LLC read from sysfs, that timed runs really read other copies, and the option on
// every wire it travels (worker protocol, protobuf, job JSON, the tracker's default for model jobs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "proto/json_convert.h"
#include "proto/measure_wire.h"
#include "runtime/cold_inputs.h"
#include "runtime/measure_worker.h"
#include "runtime/random_fill.h"
#include "runtime/worker_protocol.h"
#include "tests/test_kernels.h"
#include "tracker/job_spec.h"

namespace tf {
namespace {

using runtime::ColdInputs;

runtime::TensorSpec tensor(std::vector<int64_t> shape) {
  runtime::TensorSpec t;
  t.shape = std::move(shape);
  return t;
}

// A conv2d_bias_add's arguments: data, weight, bias, residual, then the output.
runtime::WorkloadSetup conv_like() {
  runtime::WorkloadSetup s;
  s.args = {tensor({1, 4, 8, 8}), tensor({8, 4, 3, 3}), tensor({8}), tensor({1, 8, 8, 8}), tensor({1, 8, 8, 8})};
  s.num_inputs = 4;
  return s;
}

TEST(ColdInputs, WeightsAreTheInputsAfterTheFirstNotShapedLikeTheOutput) {
  EXPECT_EQ(runtime::rotated_inputs(conv_like(), ColdInputs::Off), std::vector<int>{});
  EXPECT_EQ(runtime::rotated_inputs(conv_like(), ColdInputs::Weights), (std::vector<int>{1, 2}));
  EXPECT_EQ(runtime::rotated_inputs(conv_like(), ColdInputs::All), (std::vector<int>{0, 1, 2, 3}));
}

TEST(ColdInputs, CopiesOutgrowTwiceTheCacheWithinTheMemoryBound) {
  const runtime::LastLevelCache llc{uint64_t{32} << 20, "test"};
  // ResNet-18's 14x14x256 Winograd F(4x4) weight: 6 x 6 x 256 x 256 floats.
  const uint64_t winograd = 36ull * 256 * 256 * 4;
  const int k = runtime::cold_copies(winograd, llc);
  EXPECT_EQ(k, 8);
  EXPECT_GE(static_cast<uint64_t>(k) * winograd, 2 * llc.bytes);
  EXPECT_LT(static_cast<uint64_t>(k - 1) * winograd, 2 * llc.bytes);
  EXPECT_EQ(runtime::cold_copies(0, llc), 1);
  EXPECT_EQ(runtime::cold_copies(1024, llc), runtime::kMaxColdCopies);
  EXPECT_EQ(runtime::cold_copies(uint64_t{100} << 20, llc), 1);  // larger than 2 x LLC alone
  EXPECT_EQ(runtime::cold_copies(uint64_t{300} << 20, llc), 1);  // no copy, nothing beyond its own bytes
  const runtime::LastLevelCache huge{uint64_t{508} << 20, "cpuid of a VM"};
  try {
    runtime::cold_copies(winograd, huge);
    FAIL() << "copies beyond the bound were accepted";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cold inputs: 113 copies of the 9.0 MB"), std::string::npos) << m;
    EXPECT_NE(m.find("508.0 MB, cpuid of a VM"), std::string::npos) << m;
    EXPECT_NE(m.find("more than the 256.0 MB"), std::string::npos) << m;
  }
}

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

TEST(ColdInputs, TheLastLevelCacheIsTheHighestDataCacheInSysfs) {
  const std::filesystem::path cpu0 = std::filesystem::temp_directory_path() / ("tf-llc-" + std::to_string(::getpid()));
  std::filesystem::remove_all(cpu0);
  const runtime::LastLevelCache none = runtime::last_level_cache(cpu0.string());
  EXPECT_EQ(none.bytes, runtime::kAssumedLlcBytes);
  EXPECT_EQ(none.source.rfind("assumed: no cache sizes in ", 0), 0u) << none.source;
  const struct {
    const char* level;
    const char* type;
    const char* size;
  } caches[] = {
      {"1", "Data", "48K"}, {"1", "Instruction", "32K"}, {"2", "Unified", "1024K"}, {"3", "Unified", "32768K"}};
  for (size_t i = 0; i < 4; ++i) {
    const auto dir = cpu0 / "cache" / ("index" + std::to_string(i));
    write_file(dir / "level", caches[i].level);
    write_file(dir / "type", caches[i].type);
    write_file(dir / "size", caches[i].size);
  }
  const runtime::LastLevelCache l3 = runtime::last_level_cache(cpu0.string());
  EXPECT_EQ(l3.bytes, uint64_t{32} << 20);
  EXPECT_EQ(l3.source, (cpu0 / "cache" / "index3").string());
  std::filesystem::remove_all(cpu0);
}

// A "kernel" that records which buffers each run got: out = x + w[0].
std::vector<std::set<const void*>> g_seen;
int32_t recording_kernel(const TFBuffer* args, int32_t n) {
  g_seen.resize(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) g_seen[static_cast<size_t>(i)].insert(args[i].data);
  const float* x = static_cast<const float*>(args[0].data);
  const float* w = static_cast<const float*>(args[1].data);
  float* out = static_cast<float*>(args[n - 1].data);
  for (int i = 0; i < 64; ++i) out[i] = x[i] + w[0];
  return TF_OK;
}

// x[64], w[64K] (256 KB), out[64], with its reference.
runtime::WorkloadSetup weighted_setup() {
  runtime::WorkloadSetup s;
  s.args = {tensor({64}), tensor({65536}), tensor({64})};
  s.num_inputs = 2;
  s.seed = 9;
  std::vector<float> x(64), w(65536);
  runtime::fill_uniform(x.data(), 64, runtime::input_seed(9, 0));
  runtime::fill_uniform(w.data(), 65536, runtime::input_seed(9, 1));
  for (int i = 0; i < 64; ++i) {
    s.expected.push_back(x[i] + w[0]);
    s.tolerance.push_back(1e-6f);
  }
  return s;
}

TEST(ColdInputs, TimedRunsRotateThroughCopiesOfTheWeightsOnly) {
  const runtime::LastLevelCache llc{uint64_t{1} << 20, "test"};  // K = 2 MB / 256 KB = 8
  runtime::KernelBench bench(weighted_setup(), llc);
  runtime::MeasureOptions o = test_kernels::quick_measure(3, 10);
  o.number = 20;
  o.cold_inputs = ColdInputs::Weights;
  g_seen.clear();
  const runtime::MeasureResult r = bench.measure(recording_kernel, o);
  ASSERT_EQ(r.status, runtime::MeasureStatus::Ok) << r.error;
  EXPECT_EQ(bench.rotation(), 8);
  ASSERT_EQ(g_seen.size(), 3u);
  EXPECT_EQ(g_seen[0].size(), 1u);  // the data stays warm
  EXPECT_EQ(g_seen[1].size(), 8u);  // every copy of the weight was read
  EXPECT_EQ(g_seen[2].size(), 1u);

  o.cold_inputs = ColdInputs::Off;
  g_seen.clear();
  ASSERT_EQ(bench.measure(recording_kernel, o).status, runtime::MeasureStatus::Ok);
  EXPECT_EQ(bench.rotation(), 1);
  EXPECT_EQ(g_seen[1].size(), 1u);

  o.cold_inputs = ColdInputs::All;  // 256 KB + 256 B: still 8 copies
  g_seen.clear();
  ASSERT_EQ(bench.measure(recording_kernel, o).status, runtime::MeasureStatus::Ok);
  EXPECT_EQ(g_seen[0].size(), 8u);
  EXPECT_EQ(g_seen[1].size(), 8u);
  EXPECT_EQ(g_seen[2].size(), 1u);  // the output is not an input
}

TEST(ColdInputs, CopiesBeyondTheBoundFailTheMeasurementSayingWhy) {
  runtime::KernelBench bench(weighted_setup(), runtime::LastLevelCache{uint64_t{1} << 30, "test"});
  runtime::MeasureOptions o = test_kernels::quick_measure(1, 10);
  o.cold_inputs = ColdInputs::Weights;
  const runtime::MeasureResult r = bench.measure(recording_kernel, o);
  EXPECT_EQ(r.status, runtime::MeasureStatus::RuntimeError);
  EXPECT_EQ(r.error.rfind("cold inputs: 4096 copies", 0), 0u) << r.error;
  EXPECT_TRUE(r.costs.empty());
}

TEST(ColdInputs, TheWorkerMeasuresColdInsideItsSandbox) {
  const std::vector<uint8_t> lib = test_kernels::build_test_library();
  ASSERT_FALSE(lib.empty());
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(test_kernels::add_setup());
  runtime::MeasureOptions o = test_kernels::quick_measure(2, 10);
  o.cold_inputs = ColdInputs::All;
  const runtime::MeasureResult r = worker.measure(lib, "tf_ok", o);
  EXPECT_EQ(r.status, runtime::MeasureStatus::Ok) << r.error;
  EXPECT_EQ(r.costs.size(), 2u);
  // Out of range on the pipe as from any caller: refused by the parent, naming the field.
  o.cold_inputs = static_cast<ColdInputs>(5);
  const runtime::MeasureResult bad = worker.measure(lib, "tf_ok", o);
  EXPECT_EQ(bad.status, runtime::MeasureStatus::RuntimeError);
  EXPECT_NE(bad.error.find("cold_inputs: 5"), std::string::npos) << bad.error;
}

TEST(ColdInputs, TheOptionIsRangeChecked) {
  runtime::MeasureOptions o = test_kernels::quick_measure(1, 10);
  for (ColdInputs c : {ColdInputs::Off, ColdInputs::Weights, ColdInputs::All}) {
    o.cold_inputs = c;
    EXPECT_EQ(runtime::measure_options_error(o), "");
  }
  o.cold_inputs = static_cast<ColdInputs>(3);
  EXPECT_EQ(runtime::measure_options_error(o), "cold_inputs: 3 is not a mode (off, weights or all)");
  o.cold_inputs = static_cast<ColdInputs>(-1);
  EXPECT_EQ(runtime::measure_options_error(o).rfind("cold_inputs: -1", 0), 0u);
  ColdInputs parsed = ColdInputs::Off;
  EXPECT_TRUE(runtime::parse_cold_inputs("weights", &parsed));
  EXPECT_EQ(parsed, ColdInputs::Weights);
  EXPECT_FALSE(runtime::parse_cold_inputs("warm", &parsed));
}

TEST(ColdInputs, TheWorkerProtocolCarriesTheMode) {
  runtime::MeasureOptions o = test_kernels::quick_measure(2, 5);
  o.cold_inputs = ColdInputs::All;
  std::vector<uint8_t> library;
  std::string entry;
  runtime::MeasureOptions back;
  runtime::worker_protocol::decode_measure(runtime::worker_protocol::encode_measure({1, 2, 3}, "k", o), &library,
                                           &entry, &back);
  EXPECT_EQ(back.cold_inputs, ColdInputs::All);
  EXPECT_EQ(back.timing_lock, o.timing_lock);
  // A frame cut before the mode is refused, not read as "off".
  std::vector<uint8_t> cut = runtime::worker_protocol::encode_measure({}, "k", o);
  cut.resize(cut.size() - 1);
  EXPECT_THROW(runtime::worker_protocol::decode_measure(cut, &library, &entry, &back), std::runtime_error);
}

TEST(ColdInputs, TheProtobufAndJobJsonCarryTheMode) {
  for (ColdInputs c : {ColdInputs::Off, ColdInputs::Weights, ColdInputs::All}) {
    runtime::MeasureOptions o;
    o.cold_inputs = c;
    EXPECT_EQ(fleet::from_wire(fleet::to_wire(o)).cold_inputs, c);
  }
  EXPECT_EQ(fleet::from_wire(fleet::v1::MeasureOptions()).cold_inputs, ColdInputs::Off);  // unspecified
  fleet::v1::MeasureOptions future;
  future.set_cold_inputs(static_cast<fleet::v1::ColdInputs>(9));
  EXPECT_NE(runtime::measure_options_error(fleet::from_wire(future)).rfind("cold_inputs:", 0), std::string::npos);

  const std::string w = R"("workloads": [{"op": "dense", "shape": [64, 64, 64]}], "key": "x86")";
  const fleet::v1::JobSpec spec = fleet::job_spec_from_text("{" + w + R"(, "measure": {"cold_inputs": "weights"}})");
  EXPECT_EQ(spec.measure().cold_inputs(), fleet::v1::COLD_INPUTS_WEIGHTS);
  EXPECT_EQ(fleet::job_spec_to_json(spec).at("measure").at("cold_inputs"), "weights");
  EXPECT_FALSE(fleet::job_spec_to_json(fleet::job_spec_from_text("{" + w + "}")).at("measure").contains("cold_inputs"));
  try {
    fleet::job_spec_from_text("{" + w + R"(, "measure": {"cold_inputs": "warm"}})");
    FAIL() << "an unknown mode was accepted";
  } catch (const fleet::SpecError& e) {
    EXPECT_STREQ(e.what(), "measure.cold_inputs: expected \"off\", \"weights\" or \"all\", got 'warm'");
  }
}

TEST(ColdInputs, TheTrackerTimesModelJobsColdByDefault) {
  auto spec_for = [](const std::string& scheduler, fleet::v1::ColdInputs cold) {
    fleet::v1::JobSpec spec;
    auto* w = spec.add_workloads();
    w->set_op("dense");
    for (int64_t d : {64, 64, 64}) w->add_shape(d);
    spec.set_device_key("x86");
    spec.set_trials(8);
    spec.set_scheduler(scheduler);
    spec.mutable_measure()->set_cold_inputs(cold);
    const grpc::Status s = tracker::check_job_spec(&spec, [](const std::string&) { return true; });
    EXPECT_TRUE(s.ok()) << s.error_message();
    return spec.measure().cold_inputs();
  };
  EXPECT_EQ(spec_for("gradient", fleet::v1::COLD_INPUTS_UNSPECIFIED), fleet::v1::COLD_INPUTS_WEIGHTS);
  EXPECT_EQ(spec_for("", fleet::v1::COLD_INPUTS_UNSPECIFIED), fleet::v1::COLD_INPUTS_OFF);
  EXPECT_EQ(spec_for("gradient", fleet::v1::COLD_INPUTS_OFF), fleet::v1::COLD_INPUTS_OFF);
  EXPECT_EQ(spec_for("", fleet::v1::COLD_INPUTS_ALL), fleet::v1::COLD_INPUTS_ALL);
}

}  // namespace
}  // namespace tf
