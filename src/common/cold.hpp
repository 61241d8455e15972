// POSENC_COLD marks a function that runs once per call (argument checks, a term's tables) in a source file
// whose other functions are hot (the score terms' loops): the wasm build optimises it for size, as it
// does whole cold files (POSENC_WASM_COLD_OPT, CMakeLists.txt). Elsewhere it is nothing.
#pragma once

#if defined(POSENC_WASM_COLD_MINSIZE) && defined(__clang__)
#define POSENC_COLD __attribute__((minsize))
#else
#define POSENC_COLD
#endif
