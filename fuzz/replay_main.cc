// A fuzz target without libFuzzer, as the normal build's test run drives it (fuzz/CMakeLists.txt):
// every input of the given seed folders and files, then mutations of them (bit flips, bytes set to
// boundary values, sizes that lie, erased, inserted and repeated ranges, splices of two inputs) from
// a fixed seed, so a run is reproducible. A finding aborts the process (fuzz::finding), as under
// libFuzzer; the input that did it is written to --artifact first. The sanitized, coverage-guided
// runs are the fuzz build's (scripts/build.sh --fuzz, docs/fuzzing.md).
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "support/files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

// The input being run and where to save it when the target dies on it (read by the signal handler).
const uint8_t* g_current = nullptr;
size_t g_current_size = 0;
char g_artifact[4096] = {0};

extern "C" void save_input_and_die(int sig) {
  if (g_artifact[0] != '\0') {
    const int fd = ::open(g_artifact, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      size_t done = 0;
      while (done < g_current_size) {
        const ssize_t n = ::write(fd, g_current + done, g_current_size - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      ::close(fd);
    }
    static const char kSaved[] = "fuzz replay: the input that ended the run is saved as --artifact\n";
    (void)!::write(2, kSaved, sizeof kSaved - 1);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void run_one(const Bytes& input) {
  g_current = input.data();
  g_current_size = input.size();
  LLVMFuzzerTestOneInput(input.data(), input.size());
}

Bytes read_seed(const std::filesystem::path& p) {
  const std::string bytes = tf::read_file(p.string());
  return Bytes(bytes.begin(), bytes.end());
}

// The seeds: every regular file of each folder (in name order, so runs repeat) and each file named.
std::vector<Bytes> read_seeds(const std::vector<std::string>& paths) {
  std::vector<Bytes> seeds;
  for (const auto& path : paths) {
    if (std::filesystem::is_directory(path)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(path)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) seeds.push_back(read_seed(f));
    } else if (std::filesystem::is_regular_file(path)) {
      seeds.push_back(read_seed(path));
    } else {
      throw std::runtime_error("fuzz replay: '" + path + "' is neither a file nor a folder");
    }
  }
  if (seeds.empty()) seeds.emplace_back();
  return seeds;
}

// Values at the edges of what parsers check: zero, signs, the largest sizes, separators.
constexpr uint8_t kBoundaryBytes[] = {0x00, 0x01, 0x7f, 0x80, 0xff, '\n', '\r', '"', '\\',
                                      '{',  '}',  '[',  ']',  ',',  ':',  '-',  '0', '9'};
constexpr uint64_t kBoundaryWords[] = {0,
                                       1,
                                       0x7f,
                                       0xff,
                                       0x7fff,
                                       0xffff,
                                       0x7fffffff,
                                       0x80000000,
                                       0xffffffff,
                                       0x7fffffffffffffffULL,
                                       0x8000000000000000ULL,
                                       0xffffffffffffffffULL};

class Mutator {
 public:
  Mutator(uint64_t seed, size_t max_size) : rng_(seed), max_size_(max_size) {}

  // One to four mutations of a seed, sometimes spliced with another.
  Bytes mutate(const std::vector<Bytes>& seeds) {
    Bytes b = seeds[pick(seeds.size())];
    const int steps = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < steps; ++i) step(b, seeds);
    if (b.size() > max_size_) b.resize(max_size_);
    return b;
  }

 private:
  size_t pick(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng_() % n); }

  void step(Bytes& b, const std::vector<Bytes>& seeds) {
    switch (pick(7)) {
      case 0:  // flip a bit
        if (!b.empty()) b[pick(b.size())] ^= static_cast<uint8_t>(1u << pick(8));
        break;
      case 1:  // a boundary byte
        if (!b.empty()) b[pick(b.size())] = kBoundaryBytes[pick(sizeof kBoundaryBytes)];
        break;
      case 2: {  // a size that lies: a boundary word, little endian, over 4 or 8 bytes
        const size_t width = pick(2) ? 8 : 4;
        if (b.size() < width) break;
        const uint64_t w = kBoundaryWords[pick(std::size(kBoundaryWords))];
        std::memcpy(b.data() + pick(b.size() - width + 1), &w, width);
        break;
      }
      case 3: {  // erase a range
        if (b.empty()) break;
        const size_t at = pick(b.size());
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
                b.begin() + static_cast<std::ptrdiff_t>(at + 1 + pick(std::min<size_t>(b.size() - at, 64))));
        break;
      }
      case 4: {  // insert random bytes
        const size_t at = pick(b.size() + 1), n = 1 + pick(16);
        Bytes ins(n);
        for (auto& x : ins) x = static_cast<uint8_t>(rng_());
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), ins.begin(), ins.end());
        break;
      }
      case 5: {  // repeat a range (deep nesting, long lists)
        if (b.empty()) break;
        const size_t at = pick(b.size()), n = 1 + pick(std::min<size_t>(b.size() - at, 32));
        const Bytes chunk(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
        const size_t times = 1 + pick(64);
        for (size_t t = 0; t < times && b.size() < max_size_; ++t)
          b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), chunk.begin(), chunk.end());
        break;
      }
      default: {  // splice: this input's head, another's tail
        const Bytes& other = seeds[pick(seeds.size())];
        b.resize(pick(b.size() + 1));
        b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(pick(other.size() + 1)), other.end());
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  size_t max_size_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs this fuzz target over its seeds, then over reproducible mutations of them"};
  std::vector<std::string> paths;
  int64_t mutations = 2000;
  double seconds = 20;
  uint64_t seed = 1;
  size_t max_size = 1 << 20;
  std::string artifact;
  app.add_option("inputs", paths, "seed folders or files")->required();
  app.add_option("--mutations", mutations, "mutated inputs to run after the seeds")->check(CLI::NonNegativeNumber);
  app.add_option("--seconds", seconds, "stop the mutations after this long")->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "the mutations' random seed");
  app.add_option("--max-len", max_size, "longest mutated input, bytes")->check(CLI::PositiveNumber);
  app.add_option("--artifact", artifact, "where to save the input that ended the run");
  CLI11_PARSE(app, argc, argv);
  if (artifact.size() >= sizeof g_artifact) {
    std::fprintf(stderr, "fuzz replay: --artifact path too long\n");
    return 2;
  }
  std::strncpy(g_artifact, artifact.c_str(), sizeof g_artifact - 1);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, save_input_and_die);

  std::vector<Bytes> seeds;
  try {
    seeds = read_seeds(paths);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  for (const Bytes& s : seeds) run_one(s);

  Mutator mutator(seed, max_size);
  const auto start = std::chrono::steady_clock::now();
  int64_t ran = 0;
  for (; ran < mutations; ++ran) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) break;
    run_one(mutator.mutate(seeds));
  }
  std::printf("fuzz replay: %zu seeds and %lld mutations ran without a finding\n", seeds.size(),
              static_cast<long long>(ran));
  return 0;
}
