// Linked into the threaded wasm modules (--post-js, inside the module's closure): hands the bindings
// the pthread workers, so that in Node they can be unref'd (idle workers must not keep a process alive).
Module['posencPthreadWorkers'] = function () { return PThread.unusedWorkers.concat(PThread.runningWorkers); };
