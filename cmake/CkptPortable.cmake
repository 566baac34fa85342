# CKPT_PORTABLE=ON: the release archive's build (cpack -G TGZ). Every library is linked
# statically from Debian's archives but glibc and the two the tools open at run time
# (libcurl.so.4, libcrypto.so.3, under sonames Ubuntu 22.04/24.04 and Debian 12/13 all ship),
# so the tools run on each of them. ONNX's classes, which Debian ships only shared, are
# generated here with protoc from the descriptor Debian's own libonnx_proto embeds (dumped by
# a helper at build time), so they are the installed ones, byte for byte.
#
# Only the link differs from the ci tree: every source compiles with the ci tree's flags and
# definitions (position-independent code, Boost's shared-variant definitions, which on ELF only
# select an empty import attribute; ONNX's installed header, which the generated one must equal),
# so a build after the ci tree's takes its objects from the compiler cache.
set(portable_dir "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
function(ckpt_static_archive target)
  set(paths "")
  foreach(name IN LISTS ARGN)
    if(name MATCHES "^-")
      list(APPEND paths "${name}")
      continue()
    endif()
    if(NOT EXISTS "${portable_dir}/lib${name}.a")
      message(FATAL_ERROR "CKPT_PORTABLE: ${portable_dir}/lib${name}.a is missing (install its -dev package)")
    endif()
    list(APPEND paths "${portable_dir}/lib${name}.a")
  endforeach()
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${paths}" INTERFACE_LINK_OPTIONS "")
endfunction()

ckpt_static_archive(PkgConfig::CRYPTOPP cryptopp)
ckpt_static_archive(PkgConfig::ICU icui18n icuuc icudata -ldl -lpthread)
ckpt_static_archive(PkgConfig::YAML yaml)
ckpt_static_archive(PkgConfig::HDF5 hdf5_serial sz aec z -l:libcurl.so.4 -l:libcrypto.so.3 -ldl -lm)
set_target_properties(ZLIB::ZLIB PROPERTIES IMPORTED_LOCATION "${portable_dir}/libz.a"
                                           IMPORTED_LOCATION_RELEASE "${portable_dir}/libz.a")
set_target_properties(BZip2::BZip2 PROPERTIES IMPORTED_LOCATION "${portable_dir}/libbz2.a"
                                             IMPORTED_LOCATION_RELEASE "${portable_dir}/libbz2.a")
set_target_properties(LibLZMA::LibLZMA PROPERTIES IMPORTED_LOCATION "${portable_dir}/liblzma.a"
                                                 IMPORTED_LOCATION_RELEASE "${portable_dir}/liblzma.a")
foreach(boost_library IN ITEMS json program_options container)
  set_target_properties(Boost::${boost_library} PROPERTIES
                        IMPORTED_LOCATION_RELEASE "${portable_dir}/libboost_${boost_library}.a")
endforeach()
set_target_properties(protobuf::libprotobuf PROPERTIES IMPORTED_LOCATION "${portable_dir}/libprotobuf.a"
                                                      IMPORTED_LOCATION_RELEASE "${portable_dir}/libprotobuf.a")

find_program(CKPT_PROTOC protoc REQUIRED)
find_file(ONNX_INCLUDE_HEADER onnx/onnx-ml.pb.h REQUIRED)
set(onnx_gen "${CMAKE_BINARY_DIR}/onnx-static")
add_executable(ckpt-onnx-descriptor cmake/onnx_descriptor.cpp)
target_link_libraries(ckpt-onnx-descriptor PRIVATE "${portable_dir}/libonnx_proto.so" "${portable_dir}/libprotobuf.so")
target_compile_definitions(ckpt-onnx-descriptor PRIVATE ONNX_ML=1 ONNX_NAMESPACE=onnx)
add_custom_command(
  OUTPUT "${onnx_gen}/onnx/onnx-ml.pb.cc" "${onnx_gen}/onnx/onnx-ml.pb.h"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${onnx_gen}"
  COMMAND $<TARGET_FILE:ckpt-onnx-descriptor> "${onnx_gen}/onnx-ml.desc"
  COMMAND ${CKPT_PROTOC} "--descriptor_set_in=${onnx_gen}/onnx-ml.desc" "--cpp_out=dllexport_decl=ONNX_API:${onnx_gen}"
          onnx/onnx-ml.proto
  # The readers compile against the installed header: the generated classes must be its own.
  COMMAND ${CMAKE_COMMAND} -E compare_files "${onnx_gen}/onnx/onnx-ml.pb.h" "${ONNX_INCLUDE_HEADER}"
  DEPENDS ckpt-onnx-descriptor
  COMMENT "Generating ONNX's classes from the descriptor libonnx_proto embeds")
add_library(ckpt_onnx_proto_static STATIC "${onnx_gen}/onnx/onnx-ml.pb.cc")
target_compile_definitions(ckpt_onnx_proto_static PUBLIC ONNX_ML=1 ONNX_NAMESPACE=onnx PRIVATE ONNX_API=)
target_include_directories(ckpt_onnx_proto_static BEFORE PRIVATE "${onnx_gen}")
target_link_libraries(ckpt_onnx_proto_static PUBLIC protobuf::libprotobuf)
set_target_properties(ckpt_onnx_proto_static PROPERTIES POSITION_INDEPENDENT_CODE ON)
# Nothing above GLIBC_2.35: libstdc++'s one newer call (arc4random) is wrapped.
add_library(ckpt_glibc_compat OBJECT cmake/glibc_compat.cpp)  # objects: always linked, whatever the order
add_link_options(-static-libstdc++ -static-libgcc -Wl,--wrap=arc4random)
link_libraries(ckpt_glibc_compat)
set(CPACK_GENERATOR "TGZ")
