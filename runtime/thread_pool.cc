// A fixed pool of workers woken per parallel loop. Each loop is cut into one contiguous chunk per
// thread (static scheduling: a kernel's tasks are equal tiles, and contiguous chunks keep each
// thread's B panels and C rows its own). Workers spin briefly before sleeping, because kernels
// are launched back to back during timing and a futex wake-up costs more than a small tile.
// A chunk is claimed before it runs, and the caller, its own chunk done, runs those no worker has
// claimed yet: on a shared host a sleeping worker can take milliseconds to be scheduled (a
// virtual CPU the hypervisor parked, or a wake-up queued behind the caller on its own core), and
// a loop that waited for it would cost that much instead of the chunk's length.
#include "runtime/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "runtime/kernel_abi.h"

namespace tf::runtime {
namespace {

thread_local bool t_inside_task = false;

class ThreadPool {
 public:
  explicit ThreadPool(int threads) { start(threads); }
  ~ThreadPool() { stop(); }

  int threads() const { return threads_; }

  void resize(int threads) {
    std::lock_guard<std::mutex> run(run_mutex_);
    stop();
    start(threads);
  }

  bool pin(const std::vector<int>& cpus) {
    std::lock_guard<std::mutex> run(run_mutex_);
    if (cpus.empty()) return false;
    bool ok = pin_thread(pthread_self(), cpus[0]);
    for (size_t i = 0; i < workers_.size(); ++i)
      ok &= pin_thread(workers_[i].native_handle(), cpus[(i + 1) % cpus.size()]);
    return ok;
  }

  int32_t run(int64_t num_tasks, TFParallelBody body, void* closure) {
    if (num_tasks <= 0) return 0;
    // Nested loops, single tasks, a one-thread pool, or a loop already running from another
    // caller: run in this thread. Correct always, and never a deadlock.
    std::unique_lock<std::mutex> run(run_mutex_, std::defer_lock);
    if (t_inside_task || num_tasks == 1 || threads_ == 1 || !run.try_lock()) {
      run_serial(num_tasks, body, closure);
      return 0;
    }
    const int participants = static_cast<int>(std::min<int64_t>(threads_, num_tasks));
    Job job;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job = Job{body, closure, num_tasks, participants, generation_.load(std::memory_order_relaxed) + 1};
      job_ = job;
      pending_.store(participants, std::memory_order_relaxed);
      generation_.store(job.generation, std::memory_order_release);
    }
    wake_.notify_all();
    run_chunks(job, 0);
    // Wait for the chunks workers claimed: spin first (they finish within microseconds of ours).
    auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (pending_.load(std::memory_order_acquire) != 0) {
      if (std::chrono::steady_clock::now() > spin_until) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
        break;
      }
    }
    return 0;
  }

 private:
  struct Job {
    TFParallelBody body = nullptr;
    void* closure = nullptr;
    int64_t num_tasks = 0;
    int participants = 0;
    uint64_t generation = 0;  // the loop's number: which claims are its own
  };

  static bool pin_thread(pthread_t t, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(t, sizeof(set), &set) == 0;
  }

  static void run_serial(int64_t num_tasks, TFParallelBody body, void* closure) {
    for (int64_t i = 0; i < num_tasks; ++i) body(i, closure);
  }

  static void run_chunk(const Job& j, int chunk) {
    const int64_t begin = j.num_tasks * chunk / j.participants;
    const int64_t end = j.num_tasks * (chunk + 1) / j.participants;
    const bool was_inside = t_inside_task;
    t_inside_task = true;
    for (int64_t i = begin; i < end; ++i) j.body(i, j.closure);
    t_inside_task = was_inside;
  }

  // A chunk's claim holds the generation of the last loop that ran it. Generations only grow, so
  // a worker still holding an earlier loop's job cannot claim a chunk of the current one.
  bool claim(const Job& j, int chunk) {
    uint64_t seen = claims_[chunk].load(std::memory_order_relaxed);
    while (seen < j.generation) {
      if (claims_[chunk].compare_exchange_weak(seen, j.generation, std::memory_order_acq_rel)) return true;
    }
    return false;
  }

  // The participant's own chunk first, then any chunk nobody has claimed yet.
  void run_chunks(const Job& j, int participant) {
    for (int k = 0; k < j.participants; ++k) {
      const int chunk = (participant + k) % j.participants;
      if (!claim(j, chunk)) continue;
      run_chunk(j, chunk);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_one();
      }
    }
  }

  // `seen` is the generation when the pool started this worker: reading it inside the new thread
  // instead could skip a loop launched before the thread first ran.
  void worker(int id, uint64_t seen) {
    for (;;) {
      // Spin a little, then sleep until the next loop or shutdown.
      auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
      while (generation_.load(std::memory_order_acquire) == seen && !stopping_.load(std::memory_order_acquire) &&
             std::chrono::steady_clock::now() < spin_until) {
      }
      Job job;
      {
        // The job is copied under the lock together with its generation: a worker that wakes late
        // must not mix one loop's generation with the next loop's job.
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen || stopping_.load(); });
        if (stopping_.load()) return;
        seen = generation_.load(std::memory_order_acquire);
        job = job_;
      }
      if (id < job.participants) run_chunks(job, id);
    }
  }

  void start(int threads) {
    threads_ = std::max(1, threads);
    claims_ = std::make_unique<std::atomic<uint64_t>[]>(threads_);
    for (int i = 0; i < threads_; ++i) claims_[i].store(0);
    stopping_.store(false);
    const uint64_t now = generation_.load();
    for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i, now] { worker(i, now); });
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  int threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // one parallel loop at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};                      // chunks of the running loop not finished
  std::unique_ptr<std::atomic<uint64_t>[]> claims_;  // per chunk: the generation that claimed it
  std::atomic<bool> stopping_{false};
  Job job_;
};

int default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool& pool() {
  // Leaked on purpose: kernels may still run from static destructors of other objects at exit.
  static ThreadPool* p = new ThreadPool(default_threads());
  return *p;
}

}  // namespace

void set_num_threads(int n) {
  if (n < 1) n = 1;
  if (pool().threads() != n) pool().resize(n);
}

int num_threads() { return pool().threads(); }

bool pin_threads_to_cpus(const std::vector<int>& cpus) { return pool().pin(cpus); }

std::vector<int> usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

namespace {

cpu_set_t cpu_set_of(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  return set;
}

}  // namespace

bool pin_this_thread(const std::vector<int>& cpus) {
  const cpu_set_t set = cpu_set_of(cpus);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

bool pin_thread(pid_t thread_id, const std::vector<int>& cpus) {
  const cpu_set_t set = cpu_set_of(cpus);
  return sched_setaffinity(thread_id, sizeof set, &set) == 0;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string text;
  for (int c : cpus) text += (text.empty() ? "" : ",") + std::to_string(c);
  return text;
}

}  // namespace tf::runtime

extern "C" int32_t tf_runtime_parallel_for(int64_t num_tasks, TFParallelBody body, void* closure) {
  if (!body) return TF_ERR_PARALLEL;
  return tf::runtime::pool().run(num_tasks, body, closure);
}
