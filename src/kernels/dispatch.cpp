// Chooses the kernel set (kernels/kernel_set.hpp). Compiled with the library's default flags.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/kernel_set.hpp"
#include "posenc/kernels.hpp"

namespace posenc::kernels {

// The sets compiled (kernel_set_isa.cpp, once per set), narrowest first: X(getter suffix, whether this
// CPU runs it). __builtin_cpu_supports also requires the OS to save the wider registers (XGETBV).
#if defined(POSENC_KERNELS_X86)
#define POSENC_CPU(f) __builtin_cpu_supports(f)
#define POSENC_KERNEL_SET_LIST                                                                         \
    X(sse2, true)                                                                                       \
    X(sse41, POSENC_CPU("sse4.1"))                                                                      \
    X(avx2, POSENC_CPU("avx2") && POSENC_CPU("fma"))                                                    \
    X(avx512, POSENC_CPU("avx512f") && POSENC_CPU("avx512cd") && POSENC_CPU("avx512bw") && POSENC_CPU("avx512dq") && \
                  POSENC_CPU("avx512vl") && POSENC_CPU("avx2") && POSENC_CPU("fma"))
#else
#define POSENC_KERNEL_SET_LIST X(single, true)
#endif

#define X(isa, supported) const KernelSet& kernelSet_##isa() noexcept;
POSENC_KERNEL_SET_LIST
#undef X

namespace {

struct Entry {
    const KernelSet* set;
    bool supported;
};

std::vector<Entry> entries() {
#if defined(POSENC_KERNELS_X86)
    __builtin_cpu_init();
#endif
    std::vector<Entry> e;
#define X(isa, supported) e.push_back({&kernelSet_##isa(), static_cast<bool>(supported)});
    POSENC_KERNEL_SET_LIST
#undef X
    return e;
}

const KernelSet* find(const std::string& name, bool& known) {
    known = false;
    for (const Entry& e : entries())
        if (name == e.set->name) {
            known = true;
            return e.supported ? e.set : nullptr;
        }
    return nullptr;
}

std::string names(bool onlySupported) {
    std::string s;
    for (const Entry& e : entries())
        if (e.supported || !onlySupported) s += (s.empty() ? "" : ", ") + std::string(e.set->name);
    return s;
}

const KernelSet* choose(const char* forced) {
    if (forced && *forced) {
        bool known;
        if (const KernelSet* s = find(forced, known)) return s;
        throw std::invalid_argument(std::string(known ? "this CPU cannot run the kernel set '" : "no kernel set named '") + forced +
                                    "' (this build and CPU: " + names(true) + ")");
    }
    const KernelSet* best = nullptr;
    for (const Entry& e : entries())
        if (e.supported) best = e.set;
    return best;
}

std::atomic<const KernelSet*> current{nullptr};

const KernelSet* fromEnvironment() {
#if defined(POSENC_WASM_PACKAGE)
    // The npm package's modules: the bindings create them, so their environment is Emscripten's fixed
    // set (USER, PATH, ...), never POSENC_KERNELS, and each holds one kernel set: nothing to read, and
    // no environment or stdio functions in the module (docs/package-size.md).
    return choose(nullptr);
#else
    try {
        return choose(std::getenv("POSENC_KERNELS"));
    } catch (const std::invalid_argument& e) {
        // Not thrown from every call of the library: said once, and the best set is used.
        const KernelSet* best = choose(nullptr);
        std::fprintf(stderr, "posenc: POSENC_KERNELS: %s; using %s\n", e.what(), best->name);
        return best;
    }
#endif
}

}  // namespace

const KernelSet& active() noexcept {
    const KernelSet* s = current.load(std::memory_order_acquire);
    if (!s) {
        s = fromEnvironment();
        current.store(s, std::memory_order_release);
    }
    return *s;
}

}  // namespace posenc::kernels

namespace posenc {

std::vector<std::string> kernelSets() {
    std::vector<std::string> out;
    for (const auto& e : kernels::entries())
        if (e.supported) out.emplace_back(e.set->name);
    return out;
}

std::string activeKernelSet() { return kernels::active().name; }

void useKernelSet(const std::string& name) { kernels::current.store(kernels::choose(name.c_str()), std::memory_order_release); }

}  // namespace posenc
