# ctest entry emscripten_consumer: builds this folder's project, which vendors posenc with
# add_subdirectory, under emcmake and runs it under Node, twice: (a) Emscripten's defaults (no exception
# catching, no SIMD), (b) the consumer's own -fexceptions and -msimd128 on compile and link, catching
# posenc's std::invalid_argument. A guest posenc follows the consumer's exception model and adds no LTO,
# no wasm features and no -O of its own (which made (b) fail to link). Invoked with -DBUILD_DIR
# -DSOURCE_DIR -DEMCMAKE -DNODE; the build folders are kept, so a rerun rebuilds only what changed.
if(NOT EMCMAKE OR NOT NODE)
  message("emscripten_consumer: skipped: no emcmake or node (Debian: apt-get install emscripten)")
  return()
endif()
if(EXISTS /usr/share/nodejs)  # em++ needs Debian's acorn
  set(ENV{NODE_PATH} "/usr/share/nodejs:$ENV{NODE_PATH}")
endif()
cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)

function(variant name)
  set(dir ${BUILD_DIR}/emscripten-consumer-${name})
  string(TIMESTAMP start %s)
  execute_process(COMMAND ${EMCMAKE} ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/emscripten-consumer -B ${dir}
      -DPOSENC_DIR=${SOURCE_DIR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "(${name}) emcmake cmake failed:\n${out}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${dir} -j ${jobs} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "(${name}) build failed:\n${out}")
  endif()
  # The consumer's own compile line carries nothing of posenc's but its include path and C++17.
  file(READ ${dir}/compile_commands.json commands)
  string(REGEX MATCH "[^\n]*em\\+\\+[^\n]*/main\\.cpp[^\n]*" line "${commands}")
  if(NOT line)
    message(FATAL_ERROR "(${name}) no compile line for main.cpp in ${dir}/compile_commands.json")
  endif()
  foreach(flag -flto -fwasm-exceptions -mnontrapping-fptoint -msign-ext -mbulk-memory -msse -ffp-contract -O2 -Oz xsimd ${FORBIDDEN_${name}})
    string(FIND "${line}" "${flag}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "(${name}) posenc put '${flag}' on the consumer's compile line: ${line}")
    endif()
  endforeach()
  # Emscripten 3.1.6's JS fetches the .wasm by its path when the engine has a global fetch (Node >= 18):
  # without it, it reads the file. Both main's exit status and its verdict line count.
  execute_process(COMMAND ${NODE} --no-experimental-fetch consumer.cjs WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP end %s)
  math(EXPR seconds "${end} - ${start}")
  message("(${name}) node consumer.cjs: exit ${rc}, ${seconds} s\n${out}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "emconsumer: ok\n")
    message(FATAL_ERROR "(${name}) the consumer failed")
  endif()
  if(NOT out MATCHES "emconsumer: kernels simd128\n")  # a guest keeps SIMD128 (POSENC_WASM_SIMD in CMakeLists.txt: why)
    message(FATAL_ERROR "(${name}) posenc's SIMD128 kernels are not in use")
  endif()
endfunction()

set(FORBIDDEN_defaults -msimd128 -fexceptions)
variant(defaults -DCMAKE_CXX_FLAGS= -DCMAKE_EXE_LINKER_FLAGS= -DCONSUMER_CATCHES=OFF)
variant(exceptions "-DCMAKE_CXX_FLAGS=-fexceptions -msimd128" "-DCMAKE_EXE_LINKER_FLAGS=-fexceptions -msimd128" -DCONSUMER_CATCHES=ON)
