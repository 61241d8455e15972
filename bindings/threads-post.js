// Linked into the threaded wasm modules (--post-js, inside the module's closure): hands the bindings
// the pthread workers, so that in Node they can be unref'd (idle workers must not keep a process alive),
// and a way to refresh the heap views.
Module['posencPthreadWorkers'] = function () { return PThread.unusedWorkers.concat(PThread.runningWorkers); };
// Brings this thread's views of the heap up to the memory's size: a worker that grew the memory
// updated only its own views, and a view of the old size ends before the new addresses.
Module['posencSyncViews'] = function () { if (wasmMemory.buffer != buffer) updateGlobalBufferAndViews(wasmMemory.buffer); };
