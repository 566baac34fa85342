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

# ckpt_add_test(name SOURCES ... LABELS ...): a GoogleTest binary registered with CTest.
function(ckpt_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LABELS;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ckpt::test_support ${ARG_LIBS} GTest::gtest GTest::gtest_main ckpt_warnings)
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "${ARG_LABELS}"
    DISCOVERY_TIMEOUT 60)
endfunction()
