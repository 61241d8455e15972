# ctest kernel_objects_isolated: code compiled with a kernel set's -m flags runs only after the CPU check.
# Two ways it could run earlier, on a CPU without the set (SIGILL, e.g. AVX-512 objects on an AVX2-only
# machine), and both are refused here for every per-set object (the library's kernels and their tests):
# - a static initialiser (.init_array / .ctors): runs before main() or the library's dispatch;
# - an out-of-line inline function or template instance (a weak symbol, W) outside the set's own
#   namespace posenc::kernels::<set>: the linker keeps one copy of each for the whole program, perhaps
#   this one, and then default-flags code (std::vector<float>, doctest, ...) calls into it.
#   cmake -DOBJDUMP=<objdump> -DNM=<nm> -DOBJECTS=<a|b|c> -P check_kernel_objects.cmake
string(REPLACE "|" ";" objects "${OBJECTS}")
list(LENGTH objects count)
if(count EQUAL 0)
  message(FATAL_ERROR "no objects given")
endif()
set(bad "")
foreach(object ${objects})
  execute_process(COMMAND ${OBJDUMP} -h ${object} OUTPUT_VARIABLE sections RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${OBJDUMP} -h ${object} failed (${rc})")
  endif()
  if(sections MATCHES "[ \t](\\.init_array|\\.ctors|\\.preinit_array)[^ \t\n]*")
    list(APPEND bad "${object}: static initialiser (${CMAKE_MATCH_0})")
  endif()
  execute_process(COMMAND ${NM} --defined-only ${object} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} ${object} failed (${rc})")
  endif()
  string(REPLACE "\n" ";" lines "${symbols}")
  foreach(line ${lines})
    # "<address> W <mangled name>": a weak function. posenc::kernels::<set>:: is _ZN6posenc7kernels<n><set>,
    # the default flags' own copy is the namespace 'generic' (7generic).
    if(line MATCHES " W (.+)$")
      set(symbol "${CMAKE_MATCH_1}")
      if(NOT symbol MATCHES "^_ZN6posenc7kernels[0-9]+[a-z0-9]+" OR symbol MATCHES "^_ZN6posenc7kernels7generic")
        list(APPEND bad "${object}: shared out-of-line code ${symbol}")
      endif()
    endif()
  endforeach()
endforeach()
if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "objects compiled for one instruction set could run before the CPU check:\n  ${bad}")
endif()
message(STATUS "${count} per-instruction-set objects: no static initialiser, no out-of-line code shared with the rest")
