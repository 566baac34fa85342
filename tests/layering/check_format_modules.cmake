# A format is a module (issue 48): outside its own folders no code names a format's InputKind.
# A kind's module is the folder under lib/formats/ whose file defines its table entry
# (formats::k<Name>Format); its own folders are that one and rules/<that folder's name>/, and
# lib/core/input_kind.h lists every kind. Everything else asks the format table by property
# (pickle_family, container, torch_loads, names, ...). The four kinds the suite is built around
# are exempt: the Lensemble artifact as a directory and as a tar (artifact-format.md), the model
# folder that holds the other formats' files, and the unknown input every refusal falls back to.
# Tests are exempt too: they name the kinds they check.
# Usage: cmake -DROOT=<source dir> -P check_format_modules.cmake
cmake_minimum_required(VERSION 3.25)

set(exempt Lensemble LensembleTar ModelFolder Unknown)

file(READ "${ROOT}/lib/core/input_kind.h" kind_list)
string(REGEX MATCHALL "\n  X\\([A-Za-z0-9]+, \"" kind_lines "${kind_list}")
set(kinds "")
foreach(line IN LISTS kind_lines)
  string(REGEX REPLACE "\n  X\\(([A-Za-z0-9]+), \"" "\\1" name "${line}")
  list(APPEND kinds "${name}")
endforeach()
list(LENGTH kinds kind_count)
if(kind_count LESS 10)
  message(FATAL_ERROR "read ${kind_count} kinds from lib/core/input_kind.h: the list's form changed")
endif()

file(GLOB_RECURSE code RELATIVE "${ROOT}" "${ROOT}/lib/*.h" "${ROOT}/lib/*.cpp" "${ROOT}/rules/*.h"
     "${ROOT}/rules/*.cpp" "${ROOT}/engine/*.h" "${ROOT}/engine/*.cpp" "${ROOT}/reports/*.h"
     "${ROOT}/reports/*.cpp" "${ROOT}/apps/*.h" "${ROOT}/apps/*.cpp")
list(SORT code)

# Which module defines each kind's entry.
set(violations "")
foreach(kind IN LISTS kinds)
  set(module_${kind} "")
endforeach()
foreach(rel IN LISTS code)
  if(NOT rel MATCHES "^lib/formats/")
    continue()
  endif()
  file(READ "${ROOT}/${rel}" text)
  string(REGEX MATCHALL "formats::k[A-Za-z0-9]+Format\\{" defined "${text}")
  foreach(definition IN LISTS defined)
    string(REGEX REPLACE "formats::k([A-Za-z0-9]+)Format\\{" "\\1" kind "${definition}")
    get_filename_component(folder "${rel}" DIRECTORY)
    set(module_${kind} "${folder}")
  endforeach()
endforeach()

set(checked 0)
foreach(kind IN LISTS kinds)
  if(kind IN_LIST exempt)
    continue()
  endif()
  set(folder "${module_${kind}}")
  if(folder STREQUAL "" OR folder STREQUAL "lib/formats")
    list(APPEND violations "${kind}: its table entry (formats::k${kind}Format) is not defined in a module folder under lib/formats/")
    continue()
  endif()
  get_filename_component(module_name "${folder}" NAME)
  math(EXPR checked "${checked} + 1")
  foreach(rel IN LISTS code)
    if(rel MATCHES "^${folder}/" OR rel MATCHES "^rules/${module_name}/" OR rel STREQUAL "lib/core/input_kind.h")
      continue()
    endif()
    file(READ "${ROOT}/${rel}" text)
    if(text MATCHES "(InputKind|[^A-Za-z0-9_]K)::k${kind}([^A-Za-z0-9_]|$)")
      list(APPEND violations "${rel} names InputKind::k${kind}, which belongs to ${folder}/")
    endif()
  endforeach()
endforeach()

if(violations)
  list(JOIN violations "\n  " shown)
  message(FATAL_ERROR "format kinds named outside their modules:\n  ${shown}")
endif()
message(STATUS "format modules: ${checked} kinds, each named only in its own folders (exempt: ${exempt})")
