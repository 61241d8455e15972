// The library's one thread pool (public controls: posenc/threads.hpp). Internal: not installed.
//
// parallelFor(tasks, work, fn) runs fn(task, slot) for every task in [0, tasks). Tasks are claimed one
// at a time from a shared counter, the calling thread included, so a descheduled or not-yet-started
// worker never holds the call up: the caller runs whatever nobody else claimed and then waits only for
// workers already inside a task. `slot` (0 = the caller, < threadCount()) indexes per-thread scratch.
// Which slot runs which task varies from call to call: a task must write only its own outputs and
// its slot's scratch, so the result never depends on the thread count or the schedule.
#pragma once
#include <cstddef>
#include <type_traits>
#include <utility>

#include "posenc/threads.hpp"

namespace posenc::detail {

// Below this much work a call stays on the calling thread. The unit is one multiply-add of the
// attention engine (its QK and PV products); memory-bound passes count 16 units per float moved (they
// run at about that fraction of the engine's rate). With the workers awake, 8 tasks of a known cost
// ran no faster on 2 threads than on 1 at 8.6 us of one thread's work and 1.8x faster at 17 us
// (bench/bench_native.cpp `threshold`); 5e5 units are about 8 us of the native engine (about 25 us in
// wasm), so a call that gains nothing from a second thread never pays to wake it.
constexpr double kParallelMinWork = 5.0e5;

using TaskFn = void (*)(void* ctx, std::size_t task, int slot);
void runTasks(std::size_t tasks, TaskFn fn, void* ctx, bool parallel);

template <class F>
void parallelFor(std::size_t tasks, double work, F&& fn) {
    auto call = [](void* ctx, std::size_t task, int slot) { (*static_cast<std::remove_reference_t<F>*>(ctx))(task, slot); };
    runTasks(tasks, call, const_cast<void*>(static_cast<const void*>(&fn)), work >= kParallelMinWork && tasks > 1);
}

// Keeps the pool's idle workers awake (spinning instead of sleeping) from construction to destruction,
// and wakes any that sleep: a call that runs several passes on the pool holds it across them, so no
// worker falls asleep in the serial moments between passes, and a sleeping worker's wake-up overlaps
// the call's serial start instead of delaying its first pass. Only for calls of at least `work` >=
// kParallelMinWork (smaller ones stay on the caller). Affects when workers join, never what a task computes.
class PoolHold {
public:
    explicit PoolHold(double work);
    ~PoolHold();
    PoolHold(const PoolHold&) = delete;
    PoolHold& operator=(const PoolHold&) = delete;

private:
    [[maybe_unused]] bool held_ = false;  // (unused in a build without threads)
};

// How many of the pool's workers sleep right now, and how many were started (for tests).
int sleepingWorkers();
int startedWorkers();

// The index of the first non-finite value of x[0, n), or n when all are finite. Large arrays are
// scanned in fixed pieces on the pool (the answer is the same whoever scans which piece).
std::size_t firstNonFinite(const float* x, std::size_t n);

// (Defined in common/errors.cpp, next to requireFiniteValues, its user.)

}  // namespace posenc::detail
