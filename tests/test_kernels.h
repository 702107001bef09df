// Small C kernels that misbehave in exactly one way each (ok, wrong answer, error status, crash,
// hang), built with the system compiler, and the workload they take: for the tests of measurement
// in a worker process and on a board.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/measure.h"
#include "runtime/random_fill.h"

namespace tf::test_kernels {

inline const char* const kKernels = R"(
#include <stdint.h>
#include "runtime/kernel_abi.h"
static int check(const TFBuffer* a, int32_t n) {
  if (n != 3) return TF_ERR_NUM_ARGS;
  for (int i = 0; i < 3; ++i) if (a[i].ndim != 1 || a[i].shape[0] != 64) return TF_ERR_SHAPE;
  return TF_OK;
}
int32_t tf_ok(const TFBuffer* a, int32_t n) {
  int s = check(a, n); if (s) return s;
  const float *x = a[0].data, *y = a[1].data; float* z = a[2].data;
  for (int i = 0; i < 64; ++i) z[i] = x[i] + y[i];
  return TF_OK;
}
int32_t tf_wrong(const TFBuffer* a, int32_t n) {
  int s = tf_ok(a, n); ((float*)a[2].data)[17] += 1.0f; return s;
}
int32_t tf_crash(const TFBuffer* a, int32_t n) { volatile float* p = 0; *p = 1.0f; return TF_OK; }
int32_t tf_hang(const TFBuffer* a, int32_t n) { for (volatile int i = 0;; ) i = i; return TF_OK; }
int32_t tf_error(const TFBuffer* a, int32_t n) { return TF_ERR_SHAPE; }
)";

inline std::vector<uint8_t> build_test_library() {
  char dir[] = "/tmp/tf-measure-test-XXXXXX";
  EXPECT_NE(::mkdtemp(dir), nullptr);
  const std::string src = std::string(dir) + "/k.c", so = std::string(dir) + "/k.so";
  std::ofstream(src) << kKernels;
  const std::string cmd = "cc -shared -fPIC -O1 -I" + std::string(TF_SOURCE_DIR) + " -o " + so + " " + src + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(so, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::system(("rm -rf " + std::string(dir)).c_str());
  return bytes;
}

// The workload of the kernels: z[64] = x[64] + y[64].
inline runtime::WorkloadSetup add_setup() {
  runtime::WorkloadSetup s;
  runtime::TensorSpec t;
  t.shape = {64};
  s.args = {t, t, t};
  s.num_inputs = 2;
  s.seed = 5;
  std::vector<float> x(64), y(64);
  runtime::fill_uniform(x.data(), 64, runtime::input_seed(5, 0));
  runtime::fill_uniform(y.data(), 64, runtime::input_seed(5, 1));
  for (int i = 0; i < 64; ++i) {
    s.expected.push_back(x[i] + y[i]);
    s.tolerance.push_back(1e-6f);
  }
  return s;
}

}  // namespace tf::test_kernels
