// The engine's worker threads: one process-wide pool that batch calls share.
// Workers start on first need, then sleep on a condition variable between
// calls (an idle pool costs no CPU) and keep their thread-local workspaces,
// so their piece caches stay warm from one call to the next. The calling
// thread works too. A forked child starts with an empty pool (the parent's
// workers do not exist there) and grows its own on first use.
//
//   runtime::ThreadPool::instance().run(tasks, threads, [&](std::size_t i) { ... });
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <sched.h>
#endif

namespace snaptok::runtime {

/// Returns the number of cores this process may run on (its CPU affinity
/// where the system reports one, else every core), at least 1.
inline unsigned available_cores() noexcept {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

class ThreadPool {
 public:
  /// The most worker threads the pool starts, whatever a call asks for.
  static constexpr unsigned kMaxWorkers = 256;

  /// Returns the process's pool (never destroyed: workers may still be
  /// asleep in it while the process exits).
  static ThreadPool& instance() {
    static const bool registered = [] {
#if defined(__unix__) || defined(__APPLE__)
      // A fork while another thread holds the lock must not leave the
      // child a locked mutex; the child gets a fresh, empty pool (the old
      // one is leaked there: its workers did not survive the fork).
      pthread_atfork([] { current().mu_.lock(); }, [] { current().mu_.unlock(); },
                     [] { slot().store(new ThreadPool, std::memory_order_release); });
#endif
      return true;
    }();
    (void)registered;
    return current();
  }

  /// Runs task(i) for every i in [0, tasks), on at most `threads` threads
  /// (the caller included), and returns when all are done. Tasks are taken
  /// in order by whichever thread is free. Rethrows the error of the lowest
  /// task that threw (the other tasks still run). A call made from inside a
  /// task runs its tasks on the calling thread.
  template <class Task>
  void run(std::size_t tasks, unsigned threads, Task&& task) {
    if (tasks == 0) return;
    Job job;
    job.tasks = tasks;
    job.context = &task;
    job.call = [](void* context, std::size_t i) { (*static_cast<Task*>(context))(i); };
    std::size_t helpers = 0;
    if (threads > 1 && !in_worker()) {
      helpers = std::min<std::size_t>(tasks, std::min(threads, kMaxWorkers + 1)) - 1;
    }
    if (helpers > 0) {
      std::lock_guard lock(mu_);
      while (workers_ < helpers) start_worker();
      job.helpers_wanted = helpers;
      queue_.push_back(&job);
    }
    if (helpers > 1) {
      wake_.notify_all();
    } else if (helpers == 1) {
      wake_.notify_one();
    }
    work(job);
    if (helpers > 0) {
      std::unique_lock lock(mu_);
      // Helpers that have not joined yet will find nothing to do.
      std::erase(queue_, &job);
      finished_.wait(lock, [&] { return job.helpers_working == 0; });
    }
    if (job.error) std::rethrow_exception(job.error);
  }

  /// Worker threads started so far (they stay, asleep when idle).
  unsigned workers() {
    std::lock_guard lock(mu_);
    return workers_;
  }

 private:
  struct Job {
    std::size_t tasks = 0;
    void* context = nullptr;
    void (*call)(void*, std::size_t) = nullptr;
    std::atomic<std::size_t> next{0};
    std::mutex error_mu;
    std::exception_ptr error;           // of the lowest failing task (error_mu)
    std::size_t error_task = ~std::size_t{0};
    std::size_t helpers_wanted = 0;          // guarded by mu_
    std::size_t helpers_joined = 0;          // guarded by mu_
    std::size_t helpers_working = 0;         // guarded by mu_
  };

  ThreadPool() = default;

  static std::atomic<ThreadPool*>& slot() {
    static std::atomic<ThreadPool*> pool{new ThreadPool};
    return pool;
  }
  static ThreadPool& current() { return *slot().load(std::memory_order_acquire); }

  static bool& in_worker() {
    thread_local bool flag = false;
    return flag;
  }

  // Runs the job's tasks until none is left.
  static void work(Job& job) {
    const bool was_in_worker = in_worker();
    in_worker() = true;
    for (;;) {
      const std::size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
      if (i >= job.tasks) break;
      try {
        job.call(job.context, i);
      } catch (...) {
        std::lock_guard lock(job.error_mu);
        if (i < job.error_task) {
          job.error_task = i;
          job.error = std::current_exception();
        }
      }
    }
    in_worker() = was_in_worker;
  }

  // Starts one worker (mu_ held).
  void start_worker() {
    ++workers_;
    std::thread([this] { worker_loop(); }).detach();
  }

  void worker_loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return !queue_.empty(); });
      Job* job = queue_.front();
      if (++job->helpers_joined == job->helpers_wanted) queue_.erase(queue_.begin());
      ++job->helpers_working;
      lock.unlock();
      work(*job);
      lock.lock();
      if (--job->helpers_working == 0) finished_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;      // a job wants helpers
  std::condition_variable finished_;  // a job's last helper left it
  std::vector<Job*> queue_;           // jobs still wanting helpers, oldest first
  unsigned workers_ = 0;
};

}  // namespace snaptok::runtime
