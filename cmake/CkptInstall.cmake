# Installation and packaging: the three tools, their man pages (section 1) and bash and zsh
# completion, all generated at build time from each tool's own option tables (so they cannot
# drift from --help), the licence and README; `cpack -G DEB` builds a Debian package whose
# dependencies dpkg-shlibdeps reads off the binaries. The version is project()'s.
include(GNUInstallDirs)
set(CMAKE_INSTALL_DOCDIR "${CMAKE_INSTALL_DATAROOTDIR}/doc/ckpt-audit")

set(CKPT_TOOLS ckpt-audit ckpt-chain ckpt-diff ckpt-convert)
set(generated "${CMAKE_BINARY_DIR}/share")
set(manuals "")
foreach(tool IN LISTS CKPT_TOOLS)
  set(page "${generated}/man/man1/${tool}.1")
  set(bash "${generated}/bash-completion/completions/${tool}")
  set(zsh "${generated}/zsh/vendor-completions/_${tool}")
  add_custom_command(
    OUTPUT "${page}" "${bash}" "${zsh}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${generated}/man/man1" "${generated}/bash-completion/completions"
            "${generated}/zsh/vendor-completions"
    COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:${tool}> -DARG=--man-page -DOUT=${page}
            -P "${PROJECT_SOURCE_DIR}/cmake/WriteManual.cmake"
    COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:${tool}> "-DARG=--completion bash" -DOUT=${bash}
            -P "${PROJECT_SOURCE_DIR}/cmake/WriteManual.cmake"
    COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:${tool}> "-DARG=--completion zsh" -DOUT=${zsh}
            -P "${PROJECT_SOURCE_DIR}/cmake/WriteManual.cmake"
    DEPENDS ${tool} "${PROJECT_SOURCE_DIR}/cmake/WriteManual.cmake"
    COMMENT "Writing the man page and completion of ${tool}"
    VERBATIM)
  list(APPEND manuals "${page}" "${bash}" "${zsh}")
  install(FILES "${page}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
  install(FILES "${bash}" DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions")
  install(FILES "${zsh}" DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions")
endforeach()
add_custom_target(manuals ALL DEPENDS ${manuals})

if(CKPT_PORTABLE)
  # One binary, named ckpt-audit, and a link to it for each other tool (apps/multi-call): the
  # archive holds the static libraries once.
  install(TARGETS ckpt-multi-call RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  foreach(tool IN LISTS CKPT_TOOLS)
    if(NOT tool STREQUAL "ckpt-audit")
      install(CODE "file(CREATE_LINK ckpt-audit \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/${tool}\" SYMBOLIC)")
    endif()
  endforeach()
else()
  install(TARGETS ${CKPT_TOOLS} RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
# The isolated HDF5 reader: ckpt-audit runs it from its own directory (formats.md section 6).
install(TARGETS ckpt-h5probe RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
# The project's own documents, and a JSON Schema for each file the tools read or write, so an
# editor or a CI step can check a policy, baseline or configuration before the tool runs.
file(GLOB ckpt_docs "${PROJECT_SOURCE_DIR}/docs/*.md")
install(FILES ${ckpt_docs} DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(FILES "${PROJECT_SOURCE_DIR}/schemas/policy.schema.json" "${PROJECT_SOURCE_DIR}/schemas/baseline.schema.json"
              "${PROJECT_SOURCE_DIR}/schemas/config.schema.json"
              "${PROJECT_SOURCE_DIR}/reports/ckpt-audit-report.schema.json"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/ckpt-audit/schemas")
# Debian keeps a package's licence as /usr/share/doc/<package>/copyright.
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DOCDIR}" RENAME copyright)

set(CPACK_PACKAGE_NAME "ckpt-audit")
set(CPACK_PACKAGE_VENDOR "ckpt-audit")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Read-only auditors for machine-learning checkpoints")
set(CPACK_PACKAGE_DESCRIPTION
    "ckpt-audit, ckpt-chain and ckpt-diff audit Lensemble artifacts, safetensors files, Hugging Face folders, GGUF files and pickle checkpoints without running them, prove parent_hash histories and sign what they found. License: Apache-2.0.")
set(CPACK_PACKAGE_CONTACT "ckpt-audit maintainers <ckpt-audit@users.noreply.github.com>")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "utils")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${CKPT_INFORMATION_URI}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4")  # opened at run time (dlopen): shlibdeps cannot see it
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: the runtime libraries the binaries link
set(CPACK_RPM_PACKAGE_LICENSE "Apache-2.0")
include(CPack)
