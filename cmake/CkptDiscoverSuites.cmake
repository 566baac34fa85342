# Run after a test binary is linked (cmake -P): one CTest entry per GoogleTest suite,
# `binary --gtest_filter=Suite.*`, instead of gtest_discover_tests' process per case. A suite
# shares its process, its SetUpTestSuite fixtures and its start-up cost; a failure still names
# its case in GoogleTest's own output ("[  FAILED  ] Suite.Case").
#
# Inputs: TEST_EXECUTABLE, TEST_LABELS (a ;-list), TEST_WORKING_DIR, CTEST_FILE, and
# TEST_FIXTURES (CTest fixtures every suite requires, may be empty).
string(REPLACE "," ";" TEST_LABELS "${TEST_LABELS}")
foreach(required TEST_EXECUTABLE TEST_WORKING_DIR CTEST_FILE)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "CkptDiscoverSuites: ${required} is not set")
  endif()
endforeach()

execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
                WORKING_DIRECTORY "${TEST_WORKING_DIR}"
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "Listing the tests of ${TEST_EXECUTABLE} failed (${status}):\n${listing}\n${errors}")
endif()

# A suite line is unindented and ends with '.', optionally followed by "  # TypeParam = ...".
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z_][A-Za-z0-9_/]*)\\.( .*)?$")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(suites STREQUAL "")
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no test suite:\n${listing}")
endif()

set(fixtures "")
if(TEST_FIXTURES)
  set(fixtures " FIXTURES_REQUIRED [=[${TEST_FIXTURES}]=]")
endif()
set(script "")
foreach(suite IN LISTS suites)
  string(APPEND script
         "add_test([=[${suite}]=] [=[${TEST_EXECUTABLE}]=] [=[--gtest_filter=${suite}.*]=])\n"
         "set_tests_properties([=[${suite}]=] PROPERTIES LABELS [=[${TEST_LABELS}]=]"
         " WORKING_DIRECTORY [=[${TEST_WORKING_DIR}]=]${fixtures})\n")
endforeach()
file(WRITE "${CTEST_FILE}" "${script}")
