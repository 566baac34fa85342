# Runs TOOL with ARG (--man-page, or --completion SHELL) and writes what it prints to OUT: the
# man pages and completion scripts come from the tools' own option tables at build time.
separate_arguments(args UNIX_COMMAND "${ARG}")
execute_process(COMMAND "${TOOL}" ${args} OUTPUT_FILE "${OUT}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${TOOL} ${ARG} failed: ${result}")
endif()
