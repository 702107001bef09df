// TEMPORARY lead stub; replaced by the codegen branch's thread pool at merge.
#include "runtime/thread_pool.h"
#include "runtime/kernel_abi.h"
namespace tf::runtime { static int g_threads = 1; void set_num_threads(int n) { g_threads = n; } int num_threads() { return g_threads; } }
extern "C" int32_t tf_runtime_parallel_for(int64_t n, TFParallelBody body, void* c) { for (int64_t i = 0; i < n; ++i) body(i, c); return 0; }
