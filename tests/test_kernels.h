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

// Kernels that compute the right answer but first try what the measure worker's sandbox forbids.
inline const char* const kEscapingKernels = R"(
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "runtime/kernel_abi.h"
static int32_t add(const TFBuffer* a, int32_t n) {
  const float *x = a[0].data, *y = a[1].data; float* z = a[2].data;
  for (int i = 0; i < 64; ++i) z[i] = x[i] + y[i];
  return TF_OK;
}
int32_t tf_socket(const TFBuffer* a, int32_t n) { int fd = socket(AF_INET, SOCK_STREAM, 0); if (fd >= 0) close(fd); return add(a, n); }
int32_t tf_fork(const TFBuffer* a, int32_t n) { if (fork() == 0) _exit(0); return add(a, n); }
int32_t tf_write_file(const TFBuffer* a, int32_t n) {
  int fd = open(TF_ESCAPE_FILE, O_WRONLY | O_CREAT, 0644); if (fd >= 0) close(fd); return add(a, n);
}
int32_t tf_signal_parent(const TFBuffer* a, int32_t n) { kill(getppid(), SIGTERM); return add(a, n); }
/* Succeeds only when it cannot read a file only root may read. */
int32_t tf_read_root_file(const TFBuffer* a, int32_t n) {
  int fd = open(TF_ROOT_FILE, O_RDONLY); if (fd >= 0) { close(fd); return TF_ERR_SHAPE; } return add(a, n);
}
/* Tells its parent it waits for the timing lock, which would stop the parent's clock, then spins. */
int32_t tf_spin_unseen(const TFBuffer* a, int32_t n) {
  struct { unsigned kind; unsigned long long len; } __attribute__((packed)) waiting = {4, 0};
  if (write(1, &waiting, sizeof waiting) < 0) return TF_ERR_SHAPE;
  for (volatile int i = 0;;) i = i;
  return add(a, n);
}
/* Claims a result frame of a gigabyte, then waits. */
int32_t tf_giant_frame(const TFBuffer* a, int32_t n) {
  struct { unsigned kind; unsigned long long len; } __attribute__((packed)) huge = {3, 1ull << 30};
  if (write(1, &huge, sizeof huge) < 0) return TF_ERR_SHAPE;
  sleep(60);
  return add(a, n);
}
/* Writes half a frame header, then waits. */
int32_t tf_stalled_frame(const TFBuffer* a, int32_t n) {
  unsigned kind = 3;
  if (write(1, &kind, sizeof kind) < 0) return TF_ERR_SHAPE;
  sleep(60);
  return add(a, n);
}
/* Writes terminal escapes to its stderr, rewinds it as if to overwrite a log, writes again, fails. */
int32_t tf_scribble(const TFBuffer* a, int32_t n) {
  static const char text[] = "\x1b[2J\rscribbled";
  if (write(2, text, sizeof text - 1) < 0) return TF_ERR_SHAPE;
  lseek(2, 0, SEEK_SET);
  if (write(2, text, sizeof text - 1) < 0) return TF_ERR_SHAPE;
  return TF_ERR_SHAPE;
}
/* Succeeds only when a large allocation is refused. */
int32_t tf_allocate_4g(const TFBuffer* a, int32_t n) {
  void* p = malloc((size_t)4 << 30); if (p) { free(p); return TF_ERR_SHAPE; } return add(a, n);
}
)";

// A library whose constructor, run by dlopen before any check could see the kernel, opens a socket.
inline const char* const kEscapingConstructor = R"(
#include <sys/socket.h>
#include <unistd.h>
#include "runtime/kernel_abi.h"
__attribute__((constructor)) static void escape(void) { int fd = socket(AF_INET, SOCK_STREAM, 0); if (fd >= 0) close(fd); }
int32_t tf_ok(const TFBuffer* a, int32_t n) { return TF_OK; }
)";

// A library whose constructor takes the worker over: it answers its own measurement with a forged
// 10 ns, then keeps reading the worker's requests and answers every later one the same way.
inline const char* const kHijackingConstructor = R"(
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/kernel_abi.h"
static int get(void* p, unsigned long long n) {
  for (char* b = p; n > 0;) { ssize_t r = read(0, b, n); if (r <= 0) return 0; b += r; n -= (unsigned long long)r; }
  return 1;
}
static void frame(unsigned kind, const void* p, unsigned long long n) {
  if (write(1, &kind, 4) < 0 || write(1, &n, 8) < 0 || (n && write(1, p, n) < 0)) _exit(1);
}
static void forged_result(int repeat) {
  unsigned char b[4096];
  size_t at = 0;
  int status = 0, number = 1;
  unsigned long long no_error = 0;
  unsigned count = (unsigned)repeat;
  double ten_ns = 1e-8;
  memcpy(b + at, &status, 4), at += 4;
  memcpy(b + at, &no_error, 8), at += 8;
  memcpy(b + at, &number, 4), at += 4;
  memcpy(b + at, &count, 4), at += 4;
  for (int i = 0; i < repeat && at + 8 <= sizeof b; ++i) memcpy(b + at, &ten_ns, 8), at += 8;
  frame(3, b, at);
}
__attribute__((constructor)) static void take_over(void) {
  forged_result(TF_OWN_REPEAT);
  for (;;) {
    unsigned kind;
    unsigned long long size, library, entry;
    if (!get(&kind, 4) || !get(&size, 8)) _exit(0);
    unsigned char* p = malloc(size ? size : 1);
    if (!p || !get(p, size)) _exit(0);
    if (kind == 2) {  /* kMeasure: the library, the entry's name, then the repeat count */
      int repeat;
      memcpy(&library, p, 8);
      memcpy(&entry, p + 8 + library, 8);
      memcpy(&repeat, p + 16 + library + entry, 4);
      frame(4, 0, 0);
      frame(5, 0, 0);
      forged_result(repeat);
    }
    free(p);
  }
}
int32_t tf_ok(const TFBuffer* a, int32_t n) { return TF_OK; }
)";

// A kernel that tries to read what a board keeps from kernels: its token file (TF_TOKEN_FILE), its
// environment and memory through /proc, and the tracker's token file (TF_TRACKER_TOKENS). It
// returns 99 when it read none of them, otherwise 100 plus a bit for each it read.
inline const char* const kTokenThief = R"(
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "runtime/kernel_abi.h"
static int readable(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  char c;
  int got = read(fd, &c, 1) == 1;
  close(fd);
  return got;
}
int32_t tf_steal(const TFBuffer* a, int32_t n) {
  char path[64];
  int leaks = 0;
  if (readable(TF_TOKEN_FILE)) leaks |= 1;
  snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
  if (readable(path)) leaks |= 2;
  snprintf(path, sizeof path, "/proc/%d/mem", (int)getppid());
  int mem = open(path, O_RDONLY);
  if (mem >= 0) leaks |= 4, close(mem);
  if (readable(TF_TRACKER_TOKENS)) leaks |= 8;
  return leaks ? 100 + leaks : 99;
}
)";

inline std::vector<uint8_t> build_test_library(const char* source = kKernels, const std::string& defines = "") {
  char dir[] = "/tmp/tf-measure-test-XXXXXX";
  EXPECT_NE(::mkdtemp(dir), nullptr);
  const std::string src = std::string(dir) + "/k.c", so = std::string(dir) + "/k.so";
  std::ofstream(src) << source;
  const std::string cmd =
      "cc -shared -fPIC -O1 -I" + std::string(TF_SOURCE_DIR) + " " + defines + " -o " + so + " " + src + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(so, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::system(("rm -rf " + std::string(dir)).c_str());
  return bytes;
}

// Measure options for tests: few, short timings under the tests' own timing lock.
inline runtime::MeasureOptions quick_measure(int repeat, double timeout_s) {
  runtime::MeasureOptions o;
  o.repeat = repeat;
  o.min_repeat_ms = 1;
  o.timeout_s = timeout_s;
  o.timing_lock = "/tmp/tunefarm-test-timing.lock";
  return o;
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
