// Elementwise kernels over int64, int32 and bool tensors: ONNX Cast semantics (float to an integer
// truncates toward zero, anything to bool is x != 0), a bool written as one byte 0/1, each typed
// argument checked by the kernel's entry (TF_ERR_DTYPE for a buffer of another type), names that
// carry the types (and stay as they were for all-float32 chains), and every config of the space.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "compiler/compiler.h"
#include "compiler/error.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/tensor_dtype.h"
#include "runtime/model/executor.h"
#include "support/host_tensor.h"

namespace tf {
namespace {

using K = ops::ElementwiseKind;

// Kernel arguments in 64-byte aligned memory, described as `dtypes` say (by default, their own).
class Args {
 public:
  explicit Args(std::vector<HostTensor> tensors) : tensors_(std::move(tensors)) {
    for (const HostTensor& t : tensors_) {
      const size_t size = (std::max<size_t>(t.bytes.size(), 1) + 63) / 64 * 64;
      void* p = std::aligned_alloc(64, size);
      std::memset(p, 0, size);
      if (!t.bytes.empty()) std::memcpy(p, t.bytes.data(), t.bytes.size());
      data_.push_back(p);
    }
  }
  ~Args() {
    for (void* p : data_) std::free(p);
  }

  int32_t call(const codegen::JitKernel& k, std::vector<DType> described = {}) {
    std::vector<TFBuffer> buffers = described_as(described);
    return k.entry()(buffers.data(), static_cast<int32_t>(buffers.size()));
  }
  std::vector<TFBuffer> described_as(std::vector<DType> described = {}) {
    std::vector<TFBuffer> buffers;
    for (size_t i = 0; i < tensors_.size(); ++i) {
      TFBuffer b{};
      b.data = data_[i];
      b.shape = tensors_[i].shape.data();
      b.ndim = static_cast<int32_t>(tensors_[i].shape.size());
      runtime::model::kernel_dtype(described.empty() ? tensors_[i].dtype : described[i], &b.dtype_code, &b.dtype_bits);
      buffers.push_back(b);
    }
    return buffers;
  }
  // Argument i as the kernel left it.
  HostTensor at(size_t i) const {
    HostTensor t = tensors_[i];
    std::memcpy(t.bytes.data(), data_[i], t.bytes.size());
    return t;
  }

 private:
  std::vector<HostTensor> tensors_;
  std::vector<void*> data_;
};

std::shared_ptr<ops::ElementwiseOperator> op(ops::ElementwiseExprPtr e, int rank, std::vector<DType> in, DType out) {
  return std::make_shared<ops::ElementwiseOperator>(std::move(e), rank, std::move(in), out);
}

// Runs every config of the op's space on `inputs` and returns the outputs, all required equal.
HostTensor run_all_configs(const std::shared_ptr<ops::ElementwiseOperator>& o, const std::vector<int64_t>& shape,
                           const std::vector<HostTensor>& inputs) {
  compiler::Task task(o, shape, codegen::host_target());
  HostTensor first;
  for (int64_t i = 0; i < task.space().size(); ++i) {
    const auto cfg = task.space().at(i);
    std::vector<HostTensor> args = inputs;
    args.push_back(HostTensor::zeros(o->output_dtype(), o->output_shape(shape)));
    Args a(args);
    auto kernel = task.build_jit(cfg);
    EXPECT_EQ(a.call(*kernel), TF_OK) << cfg.str();
    const HostTensor out = a.at(inputs.size());
    if (i == 0) first = out;
    EXPECT_EQ(out.bytes, first.bytes) << o->name() << " config " << cfg.str();
  }
  return first;
}

TEST(ElementwiseDtypes, NamesCarryTypesExceptForAllFloat32Chains) {
  const auto relu = ops::ew_unary(K::Relu, ops::ew_input(0));
  EXPECT_EQ(ops::ElementwiseOperator(relu, 2).name(), "elementwise[relu(x0)]");
  EXPECT_EQ(ops::ElementwiseOperator(relu, 2, {DType::Float32}, DType::Float32).name(), "elementwise[relu(x0)]");
  const auto cast = ops::ew_cast(ops::ew_input(0), DType::Float32);
  EXPECT_EQ(cast->text(), "cast(x0,float32)");
  EXPECT_EQ(ops::ElementwiseOperator(cast, 1, {DType::Int64}, DType::Float32).name(),
            "elementwise[cast(x0,float32)|int64->float32]");
  const auto mixed = ops::ew_binary(K::Add, ops::ew_cast(ops::ew_input(0), DType::Float32), ops::ew_input(1));
  EXPECT_EQ(ops::ElementwiseOperator(mixed, 2, {DType::Int32, DType::Float32}, DType::Float32).name(),
            "elementwise[add(cast(x0,float32),x1)|int32,float32->float32]");
  for (const char* text : {"cast(x0,int64)", "cast(relu(x1),bool)", "add(cast(x0,float32),cast(x1,float32))",
                           "cast(cast(x0,int32),float32)", "cast(x0,float64)", "cast(x0,int8)", "cast(x0,uint8)"}) {
    EXPECT_EQ(ops::parse_elementwise(text)->text(), text);
  }
  for (const char* text : {"cast(x0,float16)", "cast(x0)", "cast(x0,)", "cast(x0,int64,1)"}) {
    EXPECT_THROW(ops::parse_elementwise(text), CompileError) << text;
  }
  try {
    ops::parse_elementwise("cast(x0,uint16)");
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("expected a dtype (float32, int64, int32, bool, float64, int8, uint8)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ops::ElementwiseOperator(mixed, 2, {DType::Int32}, DType::Float32),
               CompileError);  // two inputs, one type
}

TEST(ElementwiseDtypes, PlaceholdersHaveTheValuesTypesAndBoolIsOneByte) {
  const auto to_bool = ops::ew_cast(ops::ew_input(0), DType::Bool);
  compiler::Task task(op(to_bool, 2, {DType::Int64}, DType::Bool), {3, 5}, codegen::host_target());
  const auto types = task.argument_types();
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0].str(), "int64");
  EXPECT_EQ(types[1].str(), "uint8");
  EXPECT_EQ(ops::model_dtype(types[1]), DType::Bool);
  EXPECT_EQ(ops::model_dtype(ir::DataType::float16()), std::nullopt);
}

TEST(ElementwiseDtypes, Int64CastsToFloat32) {
  const std::vector<int64_t> ids = {0, 1, -1, 7, 1000000, -123456789, int64_t{1} << 40, 16777217, 3, -3, 42};
  const HostTensor out =
      run_all_configs(op(ops::ew_cast(ops::ew_input(0), DType::Float32), 1, {DType::Int64}, DType::Float32), {11},
                      {HostTensor::int64s({11}, ids)});
  const auto got = out.as_floats();
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(got[i], static_cast<float>(ids[i])) << ids[i];
}

TEST(ElementwiseDtypes, FloatToIntegerTruncatesTowardZero) {
  const std::vector<float> x = {2.7f, -2.7f, 0.5f, -0.5f, 3.0f, -3.0f, 1e6f + 0.5f, -0.0f, 126.99f};
  const HostTensor i64 =
      run_all_configs(op(ops::ew_cast(ops::ew_input(0), DType::Int64), 2, {DType::Float32}, DType::Int64), {3, 3},
                      {HostTensor::floats({3, 3}, x)});
  EXPECT_EQ(i64.as_int64s(), (std::vector<int64_t>{2, -2, 0, 0, 3, -3, 1000000, 0, 126}));
  const HostTensor i32 =
      run_all_configs(op(ops::ew_cast(ops::ew_input(0), DType::Int32), 2, {DType::Float32}, DType::Int32), {3, 3},
                      {HostTensor::floats({3, 3}, x)});
  EXPECT_EQ(i32.as_int32s(), (std::vector<int32_t>{2, -2, 0, 0, 3, -3, 1000000, 0, 126}));
}

// A 0/1 mask, one byte per element, from float32 (x != 0: NaN is true, -0 false) and from int32;
// 37 columns leave a ragged vector tail in every config.
TEST(ElementwiseDtypes, CastsToBoolWriteAZeroOneByteMask) {
  std::vector<float> x(2 * 37);
  for (size_t i = 0; i < x.size(); ++i) x[i] = i % 3 == 0 ? 0.0f : static_cast<float>(i) * (i % 2 ? -0.25f : 0.5f);
  x[5] = NAN;
  x[7] = -0.0f;
  const HostTensor mask =
      run_all_configs(op(ops::ew_cast(ops::ew_input(0), DType::Bool), 2, {DType::Float32}, DType::Bool), {2, 37},
                      {HostTensor::floats({2, 37}, x)});
  ASSERT_EQ(mask.bytes.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(mask.bytes[i], x[i] != 0.0f ? 1 : 0) << "at " << i << " (x = " << x[i] << ")";
  const HostTensor from_int =
      run_all_configs(op(ops::ew_cast(ops::ew_input(0), DType::Bool), 1, {DType::Int32}, DType::Bool), {5},
                      {HostTensor::int32s({5}, {0, -1, 2, 0, 65536})});
  EXPECT_EQ(from_int.bytes, (std::vector<uint8_t>{0, 1, 1, 0, 1}));
}

// A bool input is read as x != 0 (a byte of 7 counts as true) and casts to 0/1 in any type; an int64
// input broadcast against a float32 one.
TEST(ElementwiseDtypes, BoolAndIntegerInputsMixWithFloatsUnderBroadcasting) {
  HostTensor mask = HostTensor::bools({2, 1}, {true, false});
  const HostTensor as_float = run_all_configs(
      op(ops::ew_cast(ops::ew_input(0), DType::Float32), 2, {DType::Bool}, DType::Float32), {2, 1}, {mask});
  EXPECT_EQ(as_float.as_floats(), (std::vector<float>{1, 0}));
  mask.bytes[0] = 7;
  const HostTensor as_int =
      run_all_configs(op(ops::ew_cast(ops::ew_input(0), DType::Int64), 2, {DType::Bool}, DType::Int64), {2, 1}, {mask});
  EXPECT_EQ(as_int.as_int64s(), (std::vector<int64_t>{1, 0}));

  // ids [2,1] int64 + x [1,3] float32 -> [2,3] float32, and 0.5 * ids as int32 (truncated).
  const auto sum = ops::ew_binary(K::Add, ops::ew_cast(ops::ew_input(0), DType::Float32), ops::ew_input(1));
  const HostTensor s =
      run_all_configs(op(sum, 2, {DType::Int64, DType::Float32}, DType::Float32), {2, 1, 1, 3},
                      {HostTensor::int64s({2, 1}, {10, -20}), HostTensor::floats({1, 3}, {0.25f, 0.5f, 1})});
  EXPECT_EQ(s.as_floats(), (std::vector<float>{10.25f, 10.5f, 11, -19.75f, -19.5f, -19}));
  const auto half = ops::ew_cast(
      ops::ew_binary(K::Mul, ops::ew_cast(ops::ew_input(0), DType::Float32), ops::ew_constant(0.5)), DType::Int32);
  const HostTensor h =
      run_all_configs(op(half, 1, {DType::Int64}, DType::Int32), {4}, {HostTensor::int64s({4}, {5, -5, 4, 1})});
  EXPECT_EQ(h.as_int32s(), (std::vector<int32_t>{2, -2, 2, 0}));
}

// The entry checks each argument's type: a float32 buffer handed where the kernel reads int64, or an
// int8 one where it writes its uint8 mask, is refused before any memory is touched.
TEST(ElementwiseDtypes, TheEntryRefusesABufferOfAnotherType) {
  const auto o = op(ops::ew_cast(ops::ew_input(0), DType::Bool), 1, {DType::Int64}, DType::Bool);
  compiler::Task task(o, {4}, codegen::host_target());
  auto kernel = task.build_jit(task.space().default_config());
  Args a({HostTensor::int64s({4}, {0, 1, 2, 0}), HostTensor::zeros(DType::Bool, {4})});
  EXPECT_EQ(a.call(*kernel, {DType::Float32, DType::Bool}), TF_ERR_DTYPE);
  EXPECT_EQ(a.call(*kernel, {DType::Int32, DType::Bool}), TF_ERR_DTYPE);
  EXPECT_EQ(a.call(*kernel, {DType::Int64, DType::Float32}), TF_ERR_DTYPE);
  std::vector<TFBuffer> int8_mask = a.described_as();
  int8_mask[1].dtype_code = TF_DTYPE_INT;
  EXPECT_EQ(kernel->entry()(int8_mask.data(), 2), TF_ERR_DTYPE);
  EXPECT_EQ(a.at(1).bytes, (std::vector<uint8_t>{0, 0, 0, 0}));  // refused: nothing written
  EXPECT_EQ(a.call(*kernel), TF_OK);
  EXPECT_EQ(a.at(1).bytes, (std::vector<uint8_t>{0, 1, 1, 0}));
}

TEST(ElementwiseDtypes, AnExpressionOfAnotherTypeThanTheOutputIsRefused) {
  // cast(x0,int64) gives int64; the output claims float32.
  const auto o = op(ops::ew_cast(ops::ew_input(0), DType::Int64), 1, {DType::Float32}, DType::Float32);
  compiler::Task task(o, {4}, codegen::host_target());
  try {
    task.build_jit(task.space().default_config());
    FAIL() << "built";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("the expression is int64; the output is float32"), std::string::npos)
        << e.what();
  }
}

// The double-precision reference (what tuning checks kernels against) follows the same rules,
// with integers and bools as float values.
TEST(ElementwiseDtypes, TheReferenceCastsAsTheKernelDoes) {
  const auto o = op(ops::ew_cast(ops::ew_binary(K::Sub, ops::ew_input(0), ops::ew_constant(0.5)), DType::Int64), 1,
                    {DType::Float32}, DType::Int64);
  const std::vector<float> x = {3, -3, 0.5f, 0.75f};
  std::vector<float> out, tol;
  o->reference({4}, {x.data()}, &out, &tol);
  EXPECT_EQ(out, (std::vector<float>{2, -3, 0, 0}));
  const auto b = op(ops::ew_cast(ops::ew_input(0), DType::Bool), 1, {DType::Float32}, DType::Bool);
  b->reference({4}, {x.data()}, &out, &tol);
  EXPECT_EQ(out, (std::vector<float>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace tf
