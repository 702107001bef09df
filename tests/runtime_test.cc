// The small runtime a board links: the thread pool behind parallel loops, and loading kernel
// shared libraries without LLVM, in this process and in a separate one.
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/kernel_runner.h"
#include "runtime/kernel_library.h"
#include "runtime/thread_pool.h"

namespace tf {
namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(int64_t n) : hits(static_cast<size_t>(n)) {}
};

void count_task(int64_t task, void* closure) { static_cast<Counts*>(closure)->hits[static_cast<size_t>(task)]++; }

TEST(RuntimeThreadPool, EveryTaskRunsExactlyOnce) {
  for (int threads : {1, 2, 3}) {
    runtime::set_num_threads(threads);
    EXPECT_EQ(runtime::num_threads(), threads);
    for (int64_t n : {0, 1, 2, 7, 1000}) {
      Counts c(n);
      ASSERT_EQ(tf_runtime_parallel_for(n, count_task, &c), 0);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(c.hits[static_cast<size_t>(i)].load(), 1)
            << "task " << i << " of " << n << ", " << threads << " threads";
    }
  }
}

struct Nested {
  std::atomic<int> inner_tasks{0};
};

void inner_task(int64_t, void* closure) { static_cast<Nested*>(closure)->inner_tasks++; }
void outer_task(int64_t, void* closure) { tf_runtime_parallel_for(5, inner_task, closure); }

TEST(RuntimeThreadPool, NestedLoopsRunWithoutDeadlock) {
  runtime::set_num_threads(2);
  Nested n;
  ASSERT_EQ(tf_runtime_parallel_for(8, outer_task, &n), 0);
  EXPECT_EQ(n.inner_tasks.load(), 40);
}

TEST(RuntimeThreadPool, ManyBackToBackLoopsComplete) {
  runtime::set_num_threads(2);
  Counts c(4);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(tf_runtime_parallel_for(4, count_task, &c), 0);
  for (auto& h : c.hits) EXPECT_EQ(h.load(), 10000);
  EXPECT_EQ(tf_runtime_parallel_for(4, nullptr, nullptr), TF_ERR_PARALLEL);
}

struct ChunkRunners {
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> by_caller{0}, total{0};
};

void busy_chunk(int64_t, void* closure) {
  auto* r = static_cast<ChunkRunners*>(closure);
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
  while (std::chrono::steady_clock::now() < until) {
  }
  r->total++;
  if (std::this_thread::get_id() == r->caller) r->by_caller++;
}

// A worker that cannot run at once (here: queued behind the caller on the caller's only CPU; on a
// shared host: a parked virtual CPU) must not make the loop wait for it: the caller runs the chunks
// nobody has claimed. Were each chunk tied to its thread, the worker would run exactly half.
TEST(RuntimeThreadPool, TheCallerRunsChunksALateWorkerHasNotClaimed) {
  const std::vector<int> allowed = runtime::usable_cpus();
  runtime::set_num_threads(2);
  if (!runtime::pin_threads_to_cpus({allowed[0]})) GTEST_SKIP() << "this host refuses to pin threads";
  ChunkRunners r;
  for (int i = 0; i < 500; ++i) ASSERT_EQ(tf_runtime_parallel_for(2, busy_chunk, &r), 0);
  // The pool's threads get the caller's CPUs back: a new worker inherits the caller's affinity.
  ASSERT_TRUE(runtime::pin_this_thread(allowed));
  runtime::set_num_threads(1);
  runtime::set_num_threads(2);
  EXPECT_EQ(r.total.load(), 1000);
  EXPECT_GT(r.by_caller.load(), 600) << "of 1000 chunks, the caller ran " << r.by_caller.load();
}

// A parallel, packed dense kernel built as a shared library.
codegen::SharedLibrary build_dense_library(const compiler::Task& task) {
  return task.build_shared_library(task.parse_config(R"({"mr": 4, "nr": 16, "pack_b": true, "parallel": true})"));
}

TEST(KernelLibrary, LoadsAGeneratedLibraryFromMemoryAndRunsIt) {
  runtime::set_num_threads(2);
  compiler::Task task({"dense", {37, 45, 70}}, codegen::host_target());
  auto lib = build_dense_library(task);
  ASSERT_GT(lib.bytes.size(), 1000u);
  auto loaded = runtime::KernelLibrary::load(lib.bytes, lib.entry_symbol);
  compiler::KernelRunner runner(task.op(), task.workload().shape, 11);
  ASSERT_EQ(runner.run(loaded->entry()), TF_OK);
  EXPECT_TRUE(runner.check().pass);
  // Two libraries with the same entry symbol stay distinct (RTLD_LOCAL, distinct files).
  auto again = runtime::KernelLibrary::load(lib.bytes, lib.entry_symbol);
  EXPECT_NE(again->entry(), loaded->entry());
}

TEST(KernelLibrary, BadBytesAndMissingSymbolsAreNamed) {
  std::vector<uint8_t> garbage(200, 0x42);
  try {
    runtime::KernelLibrary::load(garbage, "tf_dense_1x1x1");
    FAIL() << "garbage loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not an ELF"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tf_dense_1x1x1"), std::string::npos) << e.what();
  }
  compiler::Task task({"dense", {8, 16, 8}}, codegen::host_target());
  auto lib = task.build_shared_library(task.space().default_config());
  try {
    runtime::KernelLibrary::load(lib.bytes, "tf_no_such_kernel");
    FAIL() << "missing symbol accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("tf_no_such_kernel"), std::string::npos) << e.what();
  }
}

std::string run_command(const std::string& cmd, int* exit_code) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  int st = p ? ::pclose(p) : -1;
  *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

void write_floats(const std::string& path, const std::vector<float>& v) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
}

std::vector<float> read_floats(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  std::vector<float> v(static_cast<size_t>(f.tellg()) / sizeof(float));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  return v;
}

TEST(KernelLibrary, ASeparateProcessWithoutLlvmLoadsAndRunsIt) {
  const int64_t M = 37, N = 45, K = 70;
  compiler::Task task({"dense", {M, N, K}}, codegen::host_target());
  auto lib = build_dense_library(task);
  char dir_template[] = "/tmp/tf-loader-test-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  {
    std::ofstream so(dir + "/kernel.so", std::ios::binary);
    so.write(reinterpret_cast<const char*>(lib.bytes.data()), static_cast<std::streamsize>(lib.bytes.size()));
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uni(-1, 1);
  std::vector<float> a(M * K), b(K * N), c(M * N, 0.f);
  for (auto& x : a) x = uni(rng);
  for (auto& x : b) x = uni(rng);
  write_floats(dir + "/a.bin", a);
  write_floats(dir + "/b.bin", b);
  write_floats(dir + "/c.bin", c);
  {
    std::ofstream spec(dir + "/spec.txt");
    spec << "float32 2 " << M << " " << K << " " << dir << "/a.bin\n";
    spec << "float32 2 " << K << " " << N << " " << dir << "/b.bin\n";
    spec << "float32 2 " << M << " " << N << " " << dir << "/c.bin\n";
  }
  int rc = 0;
  std::string out = run_command(std::string(TF_KERNEL_LOADER) + " " + dir + "/kernel.so " + lib.entry_symbol + " " +
                                    dir + "/spec.txt --threads 2 2>&1",
                                &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("status 0 ok"), std::string::npos) << out;
  EXPECT_NE(out.find("libllvm_loaded 0"), std::string::npos) << out;
  std::vector<float> got = read_floats(dir + "/c.bin");
  ASSERT_EQ(got.size(), c.size());
  int64_t bad = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k) ref += double(a[i * K + k]) * b[k * N + j];
      bad += std::abs(got[i * N + j] - ref) > 1e-4 * K;
    }
  }
  EXPECT_EQ(bad, 0);

  // A wrong shape is refused by the kernel's own argument checks, reported as a status.
  {
    std::ofstream spec(dir + "/spec.txt");
    spec << "float32 2 " << M << " " << K << " " << dir << "/a.bin\n";
    spec << "float32 2 " << K << " " << N << " " << dir << "/b.bin\n";
    spec << "float32 2 " << N << " " << M << " " << dir << "/c.bin\n";
  }
  out = run_command(
      std::string(TF_KERNEL_LOADER) + " " + dir + "/kernel.so " + lib.entry_symbol + " " + dir + "/spec.txt 2>&1", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("status 3"), std::string::npos) << out;
  // A missing file is a usage error.
  out = run_command(
      std::string(TF_KERNEL_LOADER) + " " + dir + "/nope.so " + lib.entry_symbol + " " + dir + "/spec.txt 2>&1", &rc);
  EXPECT_EQ(rc, 2) << out;
  run_command("rm -rf " + dir, &rc);
}

TEST(KernelLibrary, KernelArgumentChecksReturnStatuses) {
  compiler::Task task({"dense", {8, 16, 8}}, codegen::host_target());
  auto kernel = task.build_jit(task.space().default_config());
  compiler::HostTensor a({8, 8}), b({8, 16}), c({8, 16}), wrong({16, 8});
  std::vector<TFBuffer> args = {a.buffer(), b.buffer(), c.buffer()};
  EXPECT_EQ(kernel->entry()(args.data(), 3), TF_OK);
  EXPECT_EQ(kernel->entry()(args.data(), 2), TF_ERR_NUM_ARGS);
  args[2] = wrong.buffer();
  EXPECT_EQ(kernel->entry()(args.data(), 3), TF_ERR_SHAPE);
  args[2] = c.buffer();
  args[2].ndim = 3;
  EXPECT_EQ(kernel->entry()(args.data(), 3), TF_ERR_NDIM);
  args[2] = c.buffer();
  args[2].dtype_bits = 16;
  EXPECT_EQ(kernel->entry()(args.data(), 3), TF_ERR_DTYPE);
  args[2] = c.buffer();
  args[2].data = static_cast<char*>(args[2].data) + 4;
  EXPECT_EQ(kernel->entry()(args.data(), 3), TF_ERR_ALIGNMENT);
}

}  // namespace
}  // namespace tf

namespace tf {
namespace {

TEST(WorkspacePool, AFreedBlockIsReusedWarmAndAligned) {
  void* a = tf_runtime_workspace_alloc(4 << 20);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % TF_BUFFER_ALIGNMENT, 0u);
  static_cast<char*>(a)[0] = 1;
  tf_runtime_workspace_free(a);
  // The next call of the same kernel gets the same, already touched, block.
  void* b = tf_runtime_workspace_alloc(4 << 20);
  EXPECT_EQ(a, b);
  void* c = tf_runtime_workspace_alloc(4 << 20);
  EXPECT_NE(c, b) << "a live block is never handed out twice";
  void* odd = tf_runtime_workspace_alloc(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(odd) % TF_BUFFER_ALIGNMENT, 0u);
  int not_ours = 0;
  tf_runtime_workspace_free(&not_ours);  // ignored: only blocks it handed out go back
  tf_runtime_workspace_free(b);
  tf_runtime_workspace_free(c);
  tf_runtime_workspace_free(odd);
}

}  // namespace
}  // namespace tf
