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

// Below this much work (about one multiply-add per unit) a call stays on the calling thread: waking a
// worker and sharing the cache lines costs ~10-30 us here, about 1.5e5 multiply-adds of one core
// (measured: bench/bench_native.cpp `threshold`).
constexpr double kParallelMinWork = 2.0e5;

using TaskFn = void (*)(void* ctx, std::size_t task, int slot);
void runTasks(std::size_t tasks, TaskFn fn, void* ctx, bool parallel);

template <class F>
void parallelFor(std::size_t tasks, double work, F&& fn) {
    auto call = [](void* ctx, std::size_t task, int slot) { (*static_cast<std::remove_reference_t<F>*>(ctx))(task, slot); };
    runTasks(tasks, call, const_cast<void*>(static_cast<const void*>(&fn)), work >= kParallelMinWork && tasks > 1);
}

}  // namespace posenc::detail
