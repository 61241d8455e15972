# ctest entry cpp_doc_snippets: every ```cpp block of docs/cpp.md is a whole program. Each is built
# against the installed package (cmake --install into a prefix of its own, then find_package(posenc) in
# a generated project with the consumer's default flags and the library's compiler) and run. A block
# that does not compile, or exits non-zero (a failed assert), fails the test, named by its line in the
# doc (each file starts with `#line`, so compiler errors and assert messages point into docs/cpp.md).
# It also fails when a public header under include/posenc/ is not named in the doc.
# The blocks are read from the doc on every run: a new one is picked up without reconfiguring.
# Invoked with -DBUILD_DIR -DSOURCE_DIR -DGENERATOR -DCXX.
cmake_minimum_required(VERSION 3.20)
set(doc ${SOURCE_DIR}/docs/cpp.md)
set(work ${BUILD_DIR}/doc-snippets)
set(prefix ${work}/prefix)
set(project ${work}/project)

# Writes `content` to `path` only when it differs, so an unchanged snippet is not rebuilt.
function(write_if_changed path content)
  if(EXISTS ${path})
    file(READ ${path} old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE ${path} "${content}")
endfunction()

# The line number (1-based) at character offset `at` of `text`.
function(line_at text at out)
  string(SUBSTRING "${text}" 0 ${at} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${out} ${n} PARENT_SCOPE)
endfunction()

file(READ ${doc} text)
# Fences are found with string(FIND) on the whole text, never split into a CMake list (C++ is full of ';').
string(PREPEND text "\n")  # so a fence on the first line is preceded by a newline too; offsets shift by one line
# C++ in any other fence would not be compiled: refuse it rather than let it go untested.
string(REGEX MATCH "\n[ \t]*```[ \t]*(c\\+\\+|C\\+\\+|cxx|cc|hpp|h|C)[ \t]*\n" other "${text}")
if(other)
  string(STRIP "${other}" other)
  message(FATAL_ERROR "docs/cpp.md: a fence '${other}': mark C++ blocks ```cpp (each is compiled and run by this test)")
endif()
string(REGEX MATCH "\n[ \t]+```cpp" indented "${text}")
if(indented)
  message(FATAL_ERROR "docs/cpp.md: an indented ```cpp fence: start C++ blocks at the beginning of a line")
endif()

# Every public header is named in the doc (as its path under include/posenc/, e.g. rotary/apply.hpp), so a
# new header cannot go undocumented.
file(GLOB_RECURSE headers RELATIVE ${SOURCE_DIR}/include/posenc ${SOURCE_DIR}/include/posenc/*.hpp)
if(NOT headers)
  message(FATAL_ERROR "no public header found under ${SOURCE_DIR}/include/posenc")
endif()
set(undocumented "")
foreach(h ${headers})
  string(FIND "${text}" "${h}" at)
  if(at EQUAL -1)
    list(APPEND undocumented ${h})
  endif()
endforeach()
if(undocumented)
  message(FATAL_ERROR "docs/cpp.md does not name these public headers (include/posenc/...): ${undocumented}")
endif()

set(names "")
set(lines "")
set(rest "${text}")
set(consumed 0)  # characters of `text` before `rest`
set(n 0)
while(TRUE)
  string(FIND "${rest}" "\n```cpp" open)
  if(open EQUAL -1)
    break()
  endif()
  # `open` is the newline before the fence; the block starts after the fence's line
  math(EXPR fenceStart "${open} + 1")
  string(SUBSTRING "${rest}" ${fenceStart} -1 afterNewline)
  string(FIND "${afterNewline}" "\n" fenceLineEnd)
  if(fenceLineEnd EQUAL -1)
    message(FATAL_ERROR "docs/cpp.md: a ```cpp fence at the end of the file")
  endif()
  string(SUBSTRING "${afterNewline}" 0 ${fenceLineEnd} fenceLine)
  if(NOT fenceLine MATCHES "^```cpp[ \t]*$")
    message(FATAL_ERROR "docs/cpp.md: unexpected fence '${fenceLine}' (write ```cpp alone on its line)")
  endif()
  math(EXPR bodyStart "${fenceLineEnd} + 1")
  string(SUBSTRING "${afterNewline}" ${bodyStart} -1 body)
  string(FIND "${body}" "\n```" close)
  if(close EQUAL -1)
    message(FATAL_ERROR "docs/cpp.md: a ```cpp block is never closed")
  endif()
  math(EXPR close1 "${close} + 1")
  string(SUBSTRING "${body}" 0 ${close1} code)
  # The doc line of the block's first line: `text`'s line of the fence is one more than the doc's (the
  # prepended newline), and the block starts one line after the fence, so it is `text`'s fence line.
  math(EXPR fenceAt "${consumed} + ${fenceStart}")
  line_at("${text}" ${fenceAt} firstLine)
  math(EXPR n "${n} + 1")
  if(NOT code MATCHES "int main\\(")
    message(FATAL_ERROR "docs/cpp.md:${firstLine}: every ```cpp block must be a whole program (no main() found)")
  endif()
  list(APPEND names snippet_${n})
  list(APPEND lines ${firstLine})
  set(snippet_${n}_code "#line ${firstLine} \"docs/cpp.md\"\n${code}")
  # continue after the closing fence
  math(EXPR advance "${fenceStart} + ${bodyStart} + ${close1} + 3")
  string(SUBSTRING "${rest}" ${advance} -1 rest)
  math(EXPR consumed "${consumed} + ${advance}")
endwhile()
if(n EQUAL 0)
  message(FATAL_ERROR "docs/cpp.md has no ```cpp block: the extraction found nothing to test")
endif()

# The package, as a consumer gets it.
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed (${rc})")
endif()

# The project: one executable per block, plus a canary proving assert() is live in this build.
file(MAKE_DIRECTORY ${project})
set(lists "cmake_minimum_required(VERSION 3.20)\nproject(cpp_doc_snippets LANGUAGES CXX)\nfind_package(posenc 0.1 REQUIRED)\n")
foreach(name ${names})
  write_if_changed(${project}/${name}.cpp "${${name}_code}")
  string(APPEND lists "add_executable(${name} ${name}.cpp)\ntarget_link_libraries(${name} PRIVATE posenc::posenc)\n")
endforeach()
write_if_changed(${project}/assert_canary.cpp "#include <cassert>\nint main(int argc, char**) {\n    assert(argc == 0);  // fails: asserts are on\n    return 0;\n}\n")
string(APPEND lists "add_executable(assert_canary assert_canary.cpp)\n")
write_if_changed(${project}/CMakeLists.txt "${lists}")

# No build type (the consumer's defaults, no NDEBUG; set explicitly, so a CMAKE_BUILD_TYPE in the environment
# cannot turn the asserts off: the canary below checks that they are on).
execute_process(COMMAND ${CMAKE_COMMAND} -S ${project} -B ${work}/build -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_BUILD_TYPE= -DCMAKE_PREFIX_PATH=${prefix} OUTPUT_VARIABLE log ERROR_VARIABLE log RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the snippets' project against the installed package failed (${rc}):\n${log}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${work}/build -j 2 OUTPUT_VARIABLE log ERROR_VARIABLE log RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a ```cpp block of docs/cpp.md does not compile (errors name its docs/cpp.md line):\n${log}")
endif()

execute_process(COMMAND ${work}/build/assert_canary RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "assert() is compiled out in the snippets' build (NDEBUG): their checks would check nothing")
endif()

set(failed "")
list(LENGTH names count)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  list(GET names ${i} name)
  list(GET lines ${i} line)
  execute_process(COMMAND ${work}/build/${name} WORKING_DIRECTORY ${work} OUTPUT_VARIABLE out ERROR_VARIABLE err
      RESULT_VARIABLE rc TIMEOUT 60)
  message(STATUS "docs/cpp.md:${line} (${name}): exit ${rc}\n${out}${err}")
  if(NOT rc EQUAL 0)
    list(APPEND failed "docs/cpp.md:${line}")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "blocks of docs/cpp.md failed when run: ${failed}")
endif()
message(STATUS "${count} ```cpp blocks of docs/cpp.md compiled and ran")
