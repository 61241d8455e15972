#include "common/thread_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "posenc/common/errors.hpp"

// A wasm module built without pthreads has no threads: everything runs on the caller.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define POSENC_NO_THREADS 1
#endif

#ifndef POSENC_NO_THREADS
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#endif

// The threaded wasm build sets this to its worker pool (threads beyond it would never start).
#ifndef POSENC_THREAD_LIMIT
#define POSENC_THREAD_LIMIT 256
#endif

namespace posenc {

#ifdef POSENC_NO_THREADS

int threadCount() { return 1; }
int threadLimit() { return 1; }
int setThreadCount(int n) {
    requirePositive(n, "threads");
    return 1;
}
namespace detail {
void runTasks(std::size_t tasks, TaskFn fn, void* ctx, bool) {
    for (std::size_t t = 0; t < tasks; ++t) fn(ctx, t, 0);
}
PoolHold::PoolHold(double) {}
PoolHold::~PoolHold() {}
int sleepingWorkers() { return 0; }
int startedWorkers() { return 0; }
}  // namespace detail

#else

namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// How long an idle worker spins for the next call before it sleeps: back-to-back calls (a decode
// step per layer) then find it awake, and an idle process stops burning a core within a moment.
constexpr auto kSpin = std::chrono::microseconds(200);

int initialCount() {
    if (const char* env = std::getenv("POSENC_THREADS")) {
        char* end = nullptr;
        const long n = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && n >= 1) return static_cast<int>(std::min<long>(n, POSENC_THREAD_LIMIT));
    }
    const unsigned hw = std::thread::hardware_concurrency();
    return static_cast<int>(std::min<unsigned>(hw ? hw : 1, POSENC_THREAD_LIMIT));
}

class Pool {
public:
    ~Pool() {
        {
            std::lock_guard<std::mutex> lk(sleep_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }

    int count() const { return count_.load(std::memory_order_relaxed); }

    int setCount(int n) {
        // waits for a running call: a call sees one count from start to end
        while (busy_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
        count_.store(n, std::memory_order_relaxed);
        busy_.store(false, std::memory_order_release);
        return n;
    }

    // PoolHold: while holds_ > 0 idle workers spin without a deadline; taking a hold wakes sleepers.
    bool hold() {
        if (count() <= 1 || started_.load() == 0) return false;  // no workers (yet): nothing to keep awake
        holds_.fetch_add(1);
        if (sleepers_.load() > 0) {
            std::lock_guard<std::mutex> lk(sleep_);
            wake_.notify_all();
        }
        return true;
    }
    void release() { holds_.fetch_sub(1); }
    int sleeping() const { return sleepers_.load(); }
    int started() const { return started_.load(); }

    void run(std::size_t tasks, detail::TaskFn fn, void* ctx, bool parallel) {
        const int n = count();
        if (!parallel || n <= 1 || busy_.exchange(true, std::memory_order_acquire)) {
            // alone, or the pool is busy (another thread's call, or a call from inside a task)
            for (std::size_t t = 0; t < tasks; ++t) fn(ctx, t, 0);
            return;
        }
        struct Release {
            std::atomic<bool>& b;
            ~Release() { b.store(false, std::memory_order_release); }
        } release{busy_};
        try {
            startWorkers(n - 1);
        } catch (const std::system_error&) {  // no threads to be had: run alone
            for (std::size_t t = 0; t < tasks; ++t) fn(ctx, t, 0);
            return;
        }
        fn_ = fn;
        ctx_ = ctx;
        tasks_ = tasks;
        slots_ = n;
        next_.store(0, std::memory_order_relaxed);
        error_ = nullptr;
        open_.store(true);
        generation_.fetch_add(1);
        if (sleepers_.load() > 0) {
            std::lock_guard<std::mutex> lk(sleep_);  // orders the notify after a worker's predicate check
            wake_.notify_all();
        }
        work(0);
        open_.store(false);
        // only workers already inside this call are waited for
        for (int spins = 0; inFlight_.load() != 0; ++spins) {
            if (spins < 4096) cpuRelax();
            else std::this_thread::yield();
        }
        if (error_) std::rethrow_exception(error_);
    }

private:
    void startWorkers(int wanted) {
        while (static_cast<int>(threads_.size()) < wanted) {
            const int slot = static_cast<int>(threads_.size()) + 1;
            threads_.emplace_back([this, slot] { loop(slot); });
            started_.store(static_cast<int>(threads_.size()));
        }
    }

    // Claims tasks until none is left.
    void work(int slot) {
        for (;;) {
            const std::size_t t = next_.fetch_add(1, std::memory_order_relaxed);
            if (t >= tasks_) return;
            try {
                fn_(ctx_, t, slot);
            } catch (...) {
                std::lock_guard<std::mutex> lk(errorLock_);
                if (!error_) error_ = std::current_exception();
            }
        }
    }

    void loop(int slot) {
        std::uint64_t seen = 0;
        for (;;) {
            std::uint64_t g = generation_.load();
            for (auto until = std::chrono::steady_clock::now() + kSpin; g == seen;) {
                for (int i = 0; i < 64 && (g = generation_.load(std::memory_order_relaxed)) == seen; ++i) cpuRelax();
                if (g != seen) break;
                const auto now = std::chrono::steady_clock::now();
                if (holds_.load(std::memory_order_relaxed) > 0) until = now + kSpin;  // held: no deadline
                else if (now > until) break;
            }
            if (g == seen) {
                std::unique_lock<std::mutex> lk(sleep_);
                sleepers_.fetch_add(1);
                wake_.wait(lk, [&] { return stop_ || generation_.load() != seen || holds_.load() > 0; });
                sleepers_.fetch_sub(1);
                if (stop_) return;
                g = generation_.load();
                if (g == seen) continue;  // woken by a hold: spin for its call
            }
            seen = g;
            // join the call only while it is open; the caller then waits for this worker
            inFlight_.fetch_add(1);
            if (open_.load() && slot < slots_) work(slot);
            inFlight_.fetch_sub(1);
        }
    }

    std::atomic<int> count_{initialCount()};
    std::atomic<bool> busy_{false};
    std::vector<std::thread> threads_;
    // the call in progress (written by the caller before generation_ moves)
    detail::TaskFn fn_ = nullptr;
    void* ctx_ = nullptr;
    std::size_t tasks_ = 0;
    int slots_ = 0;
    std::exception_ptr error_;
    std::mutex errorLock_;
    // each on its own cache line: claimed by every thread, task after task
    alignas(64) std::atomic<std::size_t> next_{0};
    alignas(64) std::atomic<std::uint64_t> generation_{0};
    alignas(64) std::atomic<int> inFlight_{0};
    alignas(64) std::atomic<bool> open_{false};
    std::atomic<int> sleepers_{0};
    std::atomic<int> holds_{0};
    std::atomic<int> started_{0};  // threads_.size(), readable outside a call
    std::mutex sleep_;
    std::condition_variable wake_;
    bool stop_ = false;
};

Pool& pool() {
    static Pool p;
    return p;
}

}  // namespace

int threadCount() { return pool().count(); }
int threadLimit() { return POSENC_THREAD_LIMIT; }
int setThreadCount(int n) {
    requirePositive(n, "threads");
    return pool().setCount(std::min(n, threadLimit()));
}

namespace detail {
void runTasks(std::size_t tasks, TaskFn fn, void* ctx, bool parallel) { pool().run(tasks, fn, ctx, parallel); }
PoolHold::PoolHold(double work) : held_(work >= kParallelMinWork && pool().hold()) {}
PoolHold::~PoolHold() {
    if (held_) pool().release();
}
int sleepingWorkers() { return pool().sleeping(); }
int startedWorkers() { return pool().started(); }
}  // namespace detail

#endif

}  // namespace posenc
