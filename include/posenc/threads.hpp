// How many threads posenc's heavy calls use (attention, the KV cache's attend, applyRope).
//
// One pool of worker threads is created at the first call that can use it and reused by every later
// call; the calling thread always takes part. The work is cut into pieces whose size never depends on
// the thread count (query tiles of one kv head; keys in fixed chunks of 2048 for decode steps, merged in
// a fixed order; token chunks of 128 for applyRope and for the rotated copies of q and k that attention
// makes), so results are bit-identical for 1, 2, ... n threads. Argument checks over large arrays run
// on the pool too (finiteness in pieces of 64 KiB, naming the first bad index; row norms in pieces of
// 256 rows), with the same outcome and message for any thread count, before anything is written.
// Calls too small to gain from threads run on the calling thread alone.
//
// Thread safety:
//  - Distinct objects (KVCache, RopeTables, ...) and the free functions may be used from several threads
//    at once. Only one call at a time uses the pool; a call made while it is busy (from another thread,
//    or from inside a score term) runs on its own thread, with the same result.
//  - One KVCache must not be used by two threads at once (it keeps scratch memory between calls).
//  - setThreadCount waits for a running call to finish; it may be called at any time.
#pragma once

namespace posenc {

// The threads a call may use, the caller included. Default: the POSENC_THREADS environment variable
// when it is a positive integer, else the machine's logical cores (in wasm: what the module was loaded
// with; a module built without threads always has 1).
int threadCount();

// Sets the thread count (n >= 1, else std::invalid_argument naming "threads"), capped at
// threadLimit(); returns the count in effect. Workers beyond the new count stay asleep.
int setThreadCount(int n);

// The most threads this build can use: 1 without thread support (a wasm module built without
// pthreads), the module's worker pool in threaded wasm, 256 natively.
int threadLimit();

}  // namespace posenc
