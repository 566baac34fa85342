// Writes the FileDescriptorSet of ONNX's onnx-ml.proto as Debian's libonnx_proto embeds it,
// for protoc to generate the same classes into a static library (cmake/CkptPortable.cmake).
#include <google/protobuf/descriptor.pb.h>
#include <onnx/onnx_pb.h>

#include <fstream>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  google::protobuf::FileDescriptorSet set;
  onnx::ModelProto::descriptor()->file()->CopyTo(set.add_file());
  std::ofstream out(argv[1], std::ios::binary);
  return set.SerializeToOstream(&out) && out.flush() ? 0 : 1;
}
