# Shared compile settings for every ckpt target. ckpt_warnings_only: the warnings without the
# sanitizers, for the processes that run under an address-space limit (ckpt-h5probe and its
# test stand-in: ASan's shadow memory cannot be mapped under RLIMIT_AS).
add_library(ckpt_warnings_only INTERFACE)
target_compile_options(ckpt_warnings_only INTERFACE
  -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
# GCC 12 reports a false -Wrestrict inside std::string's operator+ at -O2 (GCC bug 105329).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(ckpt_warnings_only INTERFACE -Wno-restrict)
endif()
if(CKPT_WARNINGS_AS_ERRORS)
  target_compile_options(ckpt_warnings_only INTERFACE -Werror)
endif()
add_library(ckpt_warnings INTERFACE)
target_link_libraries(ckpt_warnings INTERFACE ckpt_warnings_only)
if(CKPT_FUZZ_ENGINE STREQUAL "libFuzzer")
  # Coverage feedback for the whole library, not just the fuzz target's own file.
  target_compile_options(ckpt_warnings INTERFACE -fsanitize=fuzzer-no-link)
endif()
if(CKPT_SANITIZE)
  target_compile_options(ckpt_warnings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(ckpt_warnings INTERFACE -fsanitize=address,undefined)
endif()

# ckpt_add_test(name SOURCES ... LABELS ... [PER_CASE]): a GoogleTest binary registered with
# CTest as one entry per test suite (cmake/CkptDiscoverSuites.cmake), so a suite pays for one
# process and builds its fixtures once; PER_CASE keeps gtest_discover_tests' entry per case
# (the perf checks, each retried on its own).
function(ckpt_add_test name)
  cmake_parse_arguments(ARG "PER_CASE" "" "SOURCES;LABELS;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ckpt::test_support ${ARG_LIBS} GTest::gtest GTest::gtest_main ckpt_warnings)
  if(ARG_PER_CASE)
    gtest_discover_tests(${name}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      PROPERTIES LABELS "${ARG_LABELS}"
      DISCOVERY_TIMEOUT 60)
    return()
  endif()
  set(ctest_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_suites.cmake")
  string(REPLACE ";" "," labels "${ARG_LABELS}")
  add_custom_command(TARGET ${name} POST_BUILD
    BYPRODUCTS "${ctest_file}"
    COMMAND "${CMAKE_COMMAND}" -D "TEST_EXECUTABLE=$<TARGET_FILE:${name}>" -D "TEST_LABELS=${labels}"
            -D "TEST_WORKING_DIR=${PROJECT_SOURCE_DIR}" -D "CTEST_FILE=${ctest_file}"
            -P "${PROJECT_SOURCE_DIR}/cmake/CkptDiscoverSuites.cmake"
    VERBATIM)
  # CTest reads the suites once the binary exists; before it is built, one failing entry says so.
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_include.cmake")
  file(WRITE "${include_file}"
       "if(EXISTS [=[${ctest_file}]=])\n  include([=[${ctest_file}]=])\nelse()\n"
       "  add_test([=[${name}_NOT_BUILT]=] [=[${name}_NOT_BUILT]=])\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
