// The program's operator new puts large blocks on transparent huge pages. Importing and building a
// large model (a 340 MB BERT encoder) writes each weight several times into fresh memory (the file,
// the protobuf, the tensor, the packed panels, the constants section): on 4 KiB pages that is
// hundreds of thousands of page faults, which cost more than the copies themselves on a virtual
// machine (bert_encoder12's `model build`: 9.1 s on 4 KiB pages, 3.1 s on huge ones). Hosts whose
// THP mode is "madvise" (the default of many distributions) give huge pages only where asked, and
// glibc asks only when told by an environment variable at start-up, so the executables that build
// models link this object and ask for each large block themselves.
//
// operator new(size_t) and its nothrow form are replaced (libstdc++'s array forms forward to them);
// the memory comes from malloc, so the library's operator delete frees it as usual. The runtime's
// own buffers (runtime/aligned_buffer.h) ask for huge pages the same way, aligned for kernels.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
// Below a few huge pages a block gains little and may share its pages with small ones.
constexpr std::size_t kLargeBlock = std::size_t{8} << 20;

void ask_for_huge_pages(void* p, std::size_t bytes) {
  // The whole huge pages inside the block: malloc serves a block this large by its own mapping, so
  // nothing else lives in them. Advice before the first touch decides how those pages fault in.
  char* const first = static_cast<char*>(p);
  const auto address = reinterpret_cast<std::uintptr_t>(first);
  char* const begin = first + (kHugePage - address % kHugePage) % kHugePage;
  char* const end = first + bytes - (address + bytes) % kHugePage;
  if (end > begin) ::madvise(begin, static_cast<std::size_t>(end - begin), MADV_HUGEPAGE);
}

}  // namespace

void* operator new(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  for (;;) {
    if (void* p = std::malloc(bytes)) {
      if (bytes >= kLargeBlock) ask_for_huge_pages(p, bytes);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(bytes);
  } catch (...) {
    return nullptr;
  }
}
