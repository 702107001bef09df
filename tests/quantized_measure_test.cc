// A tuning job checks an integer kernel as it does a float one: the worker (a separate process, on
// a board) makes the op's typed inputs from the seed within the op's ranges, and compares the
// typed output with the reference the compiler made from the same values. A quantized conv
// measured on zeros would pass whatever it computed.
#include <gtest/gtest.h>

#include <set>

#include "compiler/compiler.h"
#include "proto/measure_wire.h"
#include "runtime/measure_worker.h"
#include "runtime/worker_protocol.h"
#include "tests/test_kernels.h"
#include "tuner/tune_job.h"

namespace tf {
namespace {

const char* const kShape = "c=16,h=8,w=8,k=16,r=3,s=3,pad=1";

compiler::Task qconv_task(const std::string& op) {
  return compiler::Task({op, ops::parse_shape(op, kShape)}, codegen::host_target());
}

TEST(Measure, QuantizedConvsAreCheckedOnTypedInputs) {
  const compiler::Task task = qconv_task("qconv2d_nchwc");
  const runtime::WorkloadSetup setup = tuner::make_workload_setup(task, 7);
  ASSERT_EQ(setup.args.size(), 6u);
  EXPECT_EQ(setup.args[0].dtype_code, TF_DTYPE_UINT);
  EXPECT_EQ(setup.args[0].fill.high, 256);
  EXPECT_EQ(setup.args[1].dtype_code, TF_DTYPE_INT);
  EXPECT_EQ(setup.args[1].fill.low, -128);
  EXPECT_GT(setup.args[3].fill.low, 0);  // scales that leave outputs inside the range
  ASSERT_EQ(setup.expected.size(), 16u * 8 * 8);
  const std::set<float> values(setup.expected.begin(), setup.expected.end());
  EXPECT_GT(values.size(), 30u) << "the reference saturates: the check would prove little";

  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(setup);
  const runtime::MeasureOptions o = test_kernels::quick_measure(1, 2);
  const auto right = task.build_shared_library(task.space().default_config());
  const runtime::MeasureResult ok = worker.measure(right.bytes, right.entry_symbol, o);
  EXPECT_EQ(ok.status, runtime::MeasureStatus::Ok) << ok.error;
  // The ReLU twin takes the same arguments and differs wherever the output is below its zero point.
  const compiler::Task relu = qconv_task("qconv2d_nchwc_relu");
  const auto wrong = relu.build_shared_library(relu.space().default_config());
  const runtime::MeasureResult bad = worker.measure(wrong.bytes, wrong.entry_symbol, o);
  EXPECT_EQ(bad.status, runtime::MeasureStatus::WrongAnswer) << bad.error;
}

TEST(MeasureWire, FillRangesTravelAndAreChecked) {
  runtime::WorkloadSetup s = tuner::make_workload_setup(qconv_task("qconv2d_nchwc"), 3);
  const runtime::WorkloadSetup piped =
      runtime::worker_protocol::decode_setup(runtime::worker_protocol::encode_setup(s));
  const runtime::WorkloadSetup sent = fleet::from_wire(fleet::to_wire(s, 1));
  for (const auto* copy : {&piped, &sent}) {
    ASSERT_EQ(copy->args.size(), s.args.size());
    for (size_t i = 0; i < s.args.size(); ++i) {
      EXPECT_EQ(copy->args[i].fill.low, s.args[i].fill.low) << i;
      EXPECT_EQ(copy->args[i].fill.high, s.args[i].fill.high) << i;
    }
  }
  // A range a uint8 cannot hold, an inverted one, a NaN: refused before anything is allocated.
  for (runtime::FillRange r :
       {runtime::FillRange{0, 300}, runtime::FillRange{5, 4}, runtime::FillRange{std::nan(""), 1}}) {
    s.args[0].fill = r;
    try {
      fleet::from_wire(fleet::to_wire(s, 1));
      ADD_FAILURE() << "accepted [" << r.low << ", " << r.high << ")";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("argument 0"), std::string::npos) << e.what();
    }
    EXPECT_THROW(runtime::worker_protocol::decode_setup(runtime::worker_protocol::encode_setup(s)), std::runtime_error);
  }
  s.args[0].fill = {0, 256};
  s.expected.pop_back();  // a reference one element short of the output: the check would read past it
  EXPECT_THROW(fleet::from_wire(fleet::to_wire(s, 1)), std::invalid_argument);
  EXPECT_THROW(runtime::worker_protocol::decode_setup(runtime::worker_protocol::encode_setup(s)), std::runtime_error);
  s.expected.clear();
  s.tolerance.clear();
  s.args.back().dtype_bits = 3;  // an output type no kernel has
  EXPECT_THROW(fleet::from_wire(fleet::to_wire(s, 1)), std::invalid_argument);
}

// Read back as the type holds them: an int32 bias of -10000 is not 4294957296.
TEST(RandomFill, TypedValuesKeepTheirSign) {
  const int32_t i32[] = {-10000, 7};
  const int8_t i8[] = {-128, 127};
  const uint8_t u8[] = {255, 0};
  EXPECT_EQ(runtime::element_value(i32, TF_DTYPE_INT, 32, 0), -10000);
  EXPECT_EQ(runtime::element_value(i8, TF_DTYPE_INT, 8, 0), -128);
  EXPECT_EQ(runtime::element_value(u8, TF_DTYPE_UINT, 8, 0), 255);
  int32_t filled[64];
  runtime::fill_tensor(filled, 64, TF_DTYPE_INT, 32, {-5, 5}, 1);
  std::set<int32_t> seen(filled, filled + 64);
  EXPECT_EQ(*seen.begin(), -5);
  EXPECT_EQ(*seen.rbegin(), 4);  // the top is exclusive
}

}  // namespace
}  // namespace tf
