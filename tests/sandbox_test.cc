// The measure worker's sandbox (runtime/sandbox.h): kernels that reach for the network, a new
// process, a file to write or another process fail their trial naming the call, and the worker
// that replaces theirs measures the next kernel normally.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "runtime/measure_worker.h"
#include "runtime/sandbox.h"
#include "test_kernels.h"

namespace tf {
namespace {

using test_kernels::add_setup;
using test_kernels::build_test_library;

const char* const kEscapeFile = "/tmp/tf-sandbox-escape";
const char* const kRootFile = "/tmp/tf-sandbox-root-only";

runtime::MeasureOptions quick() { return test_kernels::quick_measure(2, 5); }

std::vector<uint8_t> escaping_library() {
  return build_test_library(test_kernels::kEscapingKernels, std::string("-DTF_ESCAPE_FILE='\"") + kEscapeFile +
                                                                "\"' -DTF_ROOT_FILE='\"" + kRootFile + "\"'");
}

void expect_stopped(const runtime::MeasureResult& r, const std::string& call) {
  EXPECT_EQ(r.status, runtime::MeasureStatus::RuntimeError) << r.error;
  EXPECT_NE(r.error.find("sandbox stopped the kernel"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("called " + call), std::string::npos) << r.error;
}

TEST(Sandbox, RefusesSocketsProcessesFileWritesAndSignalsThenMeasuresOn) {
  ::unlink(kEscapeFile);
  const std::vector<uint8_t> escaping = escaping_library();
  const std::vector<uint8_t> good = build_test_library();
  ASSERT_FALSE(escaping.empty());
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(add_setup());

  expect_stopped(worker.measure(escaping, "tf_socket", quick()), "socket");
  // fork() is clone without CLONE_THREAD in the C library.
  expect_stopped(worker.measure(escaping, "tf_fork", quick()), "clone");
  expect_stopped(worker.measure(escaping, "tf_write_file", quick()), "openat");
  expect_stopped(worker.measure(escaping, "tf_signal_parent", quick()), "kill");
  EXPECT_NE(::access(kEscapeFile, F_OK), 0) << "a sandboxed kernel created " << kEscapeFile;

  const runtime::MeasureResult after = worker.measure(good, "tf_ok", quick());
  EXPECT_EQ(after.status, runtime::MeasureStatus::Ok) << after.error;
  EXPECT_GE(worker.restarts(), 5);
}

TEST(Sandbox, IsInPlaceBeforeALibrarysConstructorsRun) {
  const std::vector<uint8_t> lib = build_test_library(test_kernels::kEscapingConstructor);
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(add_setup());
  expect_stopped(worker.measure(lib, "tf_ok", quick()), "socket");
}

TEST(Sandbox, AWorkerStartedAsRootRunsKernelsAsNobody) {
  if (::geteuid() != 0) GTEST_SKIP() << "only a worker started as root drops to nobody";
  std::ofstream(kRootFile) << "the board's token";
  ASSERT_EQ(::chmod(kRootFile, 0600), 0);
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(add_setup());
  const runtime::MeasureResult r = worker.measure(escaping_library(), "tf_read_root_file", quick());
  EXPECT_EQ(r.status, runtime::MeasureStatus::Ok) << "the kernel read a file only root may read: " << r.error;
  ::unlink(kRootFile);
}

TEST(Sandbox, BoundsTheWorkersMemory) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitized worker reserves terabytes of shadow memory and runs without an address-space limit";
#endif
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.set_sandbox(true, 1024);
  worker.setup(add_setup());
  const runtime::MeasureResult r = worker.measure(escaping_library(), "tf_allocate_4g", quick());
  EXPECT_EQ(r.status, runtime::MeasureStatus::Ok) << "a 4 GiB allocation succeeded under a 1 GiB limit: " << r.error;
}

TEST(Sandbox, WithoutItTheSameKernelRuns) {
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.set_sandbox(false, 0);
  worker.setup(add_setup());
  const runtime::MeasureResult r = worker.measure(escaping_library(), "tf_socket", quick());
  EXPECT_EQ(r.status, runtime::MeasureStatus::Ok) << r.error;
}

TEST(Sandbox, OpenFlagsThatWriteAreRefused) {
  EXPECT_TRUE(runtime::sandbox::open_flags_allowed(O_RDONLY | O_CLOEXEC));
  EXPECT_FALSE(runtime::sandbox::open_flags_allowed(O_WRONLY));
  EXPECT_FALSE(runtime::sandbox::open_flags_allowed(O_RDWR));
  EXPECT_FALSE(runtime::sandbox::open_flags_allowed(O_RDONLY | O_CREAT));
  EXPECT_FALSE(runtime::sandbox::open_flags_allowed(O_RDONLY | O_TRUNC));
  EXPECT_FALSE(runtime::sandbox::open_flags_allowed(O_TMPFILE | O_RDWR));
  EXPECT_EQ(runtime::sandbox::syscall_name(SYS_socket), "socket");
}

}  // namespace
}  // namespace tf
