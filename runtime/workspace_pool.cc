// The runtime's allocator for kernel workspaces (runtime/kernel_abi.h): blocks freed by one call are
// kept, by size, for the next, so a kernel called in a loop touches the same warm pages every time.
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include "runtime/aligned_buffer.h"
#include "runtime/kernel_abi.h"

namespace {

// Blocks kept for reuse, beyond which frees go back to the C library.
constexpr int64_t kMaxCachedBytes = int64_t{1} << 30;

struct Pool {
  std::mutex mu;
  std::multimap<int64_t, void*> free_blocks;  // by size
  std::unordered_map<void*, int64_t> live;    // block -> size
  int64_t cached = 0;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: kernels may run during exit
  return *p;
}

}  // namespace

extern "C" void* tf_runtime_workspace_alloc(int64_t bytes) {
  if (bytes <= 0) bytes = TF_BUFFER_ALIGNMENT;
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.free_blocks.find(bytes);
    if (it != p.free_blocks.end()) {
      void* block = it->second;
      p.free_blocks.erase(it);
      p.cached -= bytes;
      p.live[block] = bytes;
      return block;
    }
  }
  const int64_t rounded = (bytes + TF_BUFFER_ALIGNMENT - 1) / TF_BUFFER_ALIGNMENT * TF_BUFFER_ALIGNMENT;
  void* block = tf::runtime::allocate_aligned(static_cast<size_t>(rounded));
  if (!block) return nullptr;
  std::lock_guard<std::mutex> lock(p.mu);
  p.live[block] = bytes;
  return block;
}

extern "C" void tf_runtime_workspace_free(void* block) {
  if (!block) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  auto it = p.live.find(block);
  if (it == p.live.end()) return;  // not ours: never free what we did not hand out
  const int64_t bytes = it->second;
  p.live.erase(it);
  if (p.cached + bytes > kMaxCachedBytes) {
    std::free(block);
    return;
  }
  p.free_blocks.emplace(bytes, block);
  p.cached += bytes;
}
