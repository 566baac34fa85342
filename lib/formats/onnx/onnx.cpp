// ONNX models (formats.md section 7): a ModelProto parsed with Debian's libprotobuf against
// the schema libonnx-dev ships (its generated classes, libonnx_proto), with protobuf's own
// limits set; then walked without recursion for what loading would do outside the file
// (external data locations, custom operator domains, PyOp), the graph's topological order,
// tensor sizes and the budgets. Initializers are listed; nothing is run.
#include "lib/formats/onnx/onnx.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"

namespace ckpt {
namespace {

constexpr std::uint64_t kMaxBytes = (std::uint64_t{1} << 31) - 1;  // protobuf's limit
constexpr int kRecursionLimit = 64;
constexpr std::uint64_t kMaxNodes = 1'000'000;
constexpr std::uint64_t kMaxInitializers = 1'000'000;
constexpr std::uint64_t kMaxAttributes = 1'000'000;
constexpr std::size_t kMaxGraphDepth = 64;
constexpr std::uint64_t kMaxScopeCopies = 50'000'000;  // names copied into subgraph scopes, in all

using onnx_model::OnnxFacts;

// The ModelProto fields a file may start with after ir_version (formats.md section 1 row 17).
bool IsModelField(std::uint64_t field) {
  return (field >= 2 && field <= 8) || field == 14 || field == 20 || field == 25;
}

std::optional<std::uint64_t> Varint(std::span<const std::byte> bytes, std::size_t& at) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
    const auto b = std::to_integer<std::uint8_t>(bytes[at++]);
    v |= static_cast<std::uint64_t>(b & 0x7fU) << static_cast<unsigned>(shift);
    if ((b & 0x80U) == 0) return v;
  }
  return std::nullopt;
}

std::optional<std::string> SniffOnnx(const FileHead& head) {
  if (head.bytes.empty() || head.bytes[0] != std::byte{0x08}) return std::nullopt;
  std::size_t at = 1;
  const auto ir_version = Varint(head.bytes, at);
  if (!ir_version || *ir_version < 1 || *ir_version > 64) return std::nullopt;
  const auto tag = Varint(head.bytes, at);
  if (!tag || !IsModelField(*tag >> 3U)) return std::nullopt;
  const std::uint64_t wire = *tag & 7U;
  const std::uint64_t field = *tag >> 3U;
  if (wire != (field == 5 ? 0U : 2U)) return std::nullopt;  // model_version is a varint, the rest messages or strings
  return "an ONNX model";
}

// The safetensors token of an ONNX element type, its size, and its ONNX name.
struct ElementType {
  int id;
  std::string_view token;  ///< listed dtype: the safetensors token, or the ONNX name
  std::uint64_t bits;      ///< 0: not fixed-size (STRING)
};
const ElementType* FindElementType(int id) {
  static constexpr std::array<ElementType, 23> kTypes{{
      {1, "F32", 32},
      {2, "U8", 8},
      {3, "I8", 8},
      {4, "U16", 16},
      {5, "I16", 16},
      {6, "I32", 32},
      {7, "I64", 64},
      {8, "STRING", 0},
      {9, "BOOL", 8},
      {10, "F16", 16},
      {11, "F64", 64},
      {12, "U32", 32},
      {13, "U64", 64},
      {14, "C64", 64},
      {15, "COMPLEX128", 128},
      {16, "BF16", 16},
      {17, "F8_E4M3", 8},
      {18, "FLOAT8E4M3FNUZ", 8},
      {19, "F8_E5M2", 8},
      {20, "FLOAT8E5M2FNUZ", 8},
      {21, "UINT4", 4},
      {22, "INT4", 4},
      {23, "FLOAT4E2M1", 4},
  }};
  for (const ElementType& t : kTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

bool IsStandardDomain(std::string_view domain) {
  return domain.empty() || domain == "ai.onnx" || domain == "ai.onnx.ml" || domain == "ai.onnx.training" ||
         domain == "ai.onnx.preview.training";
}

// Why an external data location escapes the model's folder, or means different files to
// different loaders (the message's tail says which); nullopt when it names one file inside it.
std::optional<std::string> EscapeReason(std::string_view location) {
  auto escapes = [](std::string_view why) {
    return std::string(why) + ": loading the model reads a file outside its folder";
  };
  if (location.empty()) return escapes("is empty");
  if (location.find('\0') != std::string_view::npos) return escapes("holds a NUL");
  if (location.front() == '/') return escapes("is absolute");
  if (location.find('\\') != std::string_view::npos) return escapes("holds a backslash");
  if (location.size() >= 2 && location[1] == ':' && std::isalpha(static_cast<unsigned char>(location[0])) != 0) {
    return escapes("names a drive");
  }
  for (std::size_t from = 0; from <= location.size();) {
    const std::size_t slash = std::min(location.find('/', from), location.size());
    if (location.substr(from, slash - from) == "..") return escapes("has a '..' component");
    from = slash + 1;
  }
  // onnx 1.12 opens location.lstrip('/.'), later versions and runtimes the path as written:
  // both must name one file (a leading "./" is the same file; ".w.bin" is not "w.bin").
  std::string_view as_written = location;
  while (as_written.starts_with("./")) {
    as_written.remove_prefix(2);
    while (as_written.starts_with('/')) as_written.remove_prefix(1);
  }
  std::string_view stripped = location;
  while (!stripped.empty() && (stripped.front() == '/' || stripped.front() == '.')) stripped.remove_prefix(1);
  if (stripped != as_written) {
    return "means " + QuoteForMessage(stripped, 120) + " to onnx 1.12 (which strips leading '.' and '/') and " +
           QuoteForMessage(as_written, 120) + " to later versions and runtimes: loaders read different files";
  }
  return std::nullopt;
}

class ModelWalker {
 public:
  ModelWalker(const FileReporter& report, WeightFile& wf, OnnxFacts& facts) : report_(report), wf_(wf), facts_(facts) {}

  void Walk(const onnx::ModelProto& model) {
    if (!model.has_graph()) {
      Report(Diag::kOnnxInvalid, "The model has no graph: it is not a model a runtime can load.");
      return;
    }
    // A node that calls a model-local function needs no operator library; any other node of
    // that function's domain still does (the warning is per node, never per domain).
    std::set<std::string, std::less<>> local_domains;
    for (const onnx::FunctionProto& f : model.functions()) {
      local_domains.insert(f.domain());
      local_functions_.emplace(f.domain(), f.name());
    }
    for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
      if (!IsStandardDomain(opset.domain()) && !local_domains.contains(opset.domain())) {
        custom_[opset.domain()];  // named even when no node uses it
      }
    }
    UnknownFields(model, "the model");
    pending_.push_back({&model.graph(), nullptr, 1, std::make_shared<Scope>()});
    // Function bodies are walked as graphs are: their nodes, attributes and subgraphs.
    for (const onnx::FunctionProto& f : model.functions()) {
      auto inputs = std::make_shared<Scope>(f.input().begin(), f.input().end());
      pending_.push_back({nullptr, &f, 1, std::move(inputs)});
    }
    while (!pending_.empty() && !stopped_) {
      Pending p = std::move(pending_.back());
      pending_.pop_back();
      if (p.depth > kMaxGraphDepth) {
        Budget("subgraphs nest deeper than " + std::to_string(kMaxGraphDepth) + " levels");
        return;
      }
      Scope scope = *p.outer;
      if (p.graph != nullptr) {
        Graph(*p.graph, scope, p.depth);
      } else {
        nodes_ += static_cast<std::uint64_t>(p.function->node_size());
        if (nodes_ > kMaxNodes) return Budget("it has more than 10^6 nodes");
        Nodes(p.function->node(), scope, "function " + QuoteForMessage(p.function->name(), 60), p.depth);
      }
    }
    for (const auto& [domain, ops] : custom_) {
      std::string listed;
      for (const std::string& op : ops) listed += (listed.empty() ? "" : ", ") + QuoteForMessage(op, 60);
      Report(Diag::kOnnxCustomDomain,
             "Domain " + QuoteForMessage(domain, 80) +
                 (listed.empty() ? std::string(" is imported") : " has node types " + listed) +
                 ": no local function defines it, so running the model needs a custom operator library (native "
                 "code its publisher supplies).");
    }
  }

 private:
  // One graph: its initializers listed and checked, its nodes in topological order.
  using Scope = std::set<std::string, std::less<>>;
  struct Pending {
    const onnx::GraphProto* graph;        ///< a graph, or
    const onnx::FunctionProto* function;  ///< a model-local function's body
    std::size_t depth;
    std::shared_ptr<const Scope> outer;  ///< the names a subgraph sees: those defined before its node
  };

  void Graph(const onnx::GraphProto& graph, Scope& defined, std::size_t depth) {
    const std::string shown = QuoteForMessage(graph.name(), 60);
    initializers_ += static_cast<std::uint64_t>(graph.initializer_size() + graph.sparse_initializer_size());
    nodes_ += static_cast<std::uint64_t>(graph.node_size());
    if (initializers_ > kMaxInitializers || nodes_ > kMaxNodes) {
      Budget(nodes_ > kMaxNodes ? "it has more than 10^6 nodes" : "it has more than 10^6 initializers");
      return;
    }
    std::set<std::string, std::less<>> initializer_names;
    for (const onnx::TensorProto& t : graph.initializer()) {
      if (t.name().empty()) {
        Report(Diag::kOnnxInvalid, "Graph " + shown + " has an initializer without a name.");
        continue;
      }
      if (!initializer_names.insert(t.name()).second) {
        Report(Diag::kOnnxInvalid, "Graph " + shown + " has two initializers named " + QuoteForMessage(t.name()) +
                                       ": runtimes keep one of them.");
        continue;
      }
      defined.insert(t.name());
      Tensor(t, t.name(), std::nullopt);
    }
    for (const onnx::SparseTensorProto& s : graph.sparse_initializer()) {
      const std::string& name = s.values().name();
      defined.insert(name);
      std::vector<std::uint64_t> dims;
      for (std::int64_t d : s.dims()) dims.push_back(d < 0 ? 0 : static_cast<std::uint64_t>(d));
      Tensor(s.values(), name, dims);
      ExternalData(s.indices(), name + " (indices)", std::nullopt);
    }
    for (const onnx::ValueInfoProto& input : graph.input()) defined.insert(input.name());
    Nodes(graph.node(), defined, "graph " + shown, depth);
  }

  // The nodes of a graph or a function body, in topological order: their operators, inputs,
  // the tensors in their attributes (a Constant's value and sparse_value among them) and
  // their subgraphs.
  void Nodes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, Scope& defined, const std::string& shown,
             std::size_t depth) {
    for (int i = 0; i < nodes.size() && !stopped_; ++i) {
      const onnx::NodeProto& node = nodes.Get(i);
      if (node.domain() == "ai.onnx.contrib" && node.op_type() == "PyOp") {
        Report(Diag::kOnnxPythonOp, "Node " + std::to_string(i) + " of " + shown +
                                        " is an ai.onnx.contrib PyOp: onnxruntime-extensions runs a Python "
                                        "function for it when the model runs.");
      } else if (!IsStandardDomain(node.domain()) &&
                 !local_functions_.contains(std::pair<std::string, std::string>(node.domain(), node.op_type()))) {
        auto& ops = custom_[node.domain()];
        if (ops.size() < 8) ops.insert(node.op_type());
      }
      for (const std::string& input : node.input()) {
        if (!input.empty() && !defined.contains(input)) {
          Report(Diag::kOnnxInvalid, "Node " + std::to_string(i) + " (" + QuoteForMessage(node.op_type(), 40) +
                                         ") of " + shown + " reads " + QuoteForMessage(input, 80) +
                                         ", which no initializer, graph input or earlier node output defines.");
        }
      }
      std::shared_ptr<const Scope> before;  // one snapshot for all of the node's subgraphs
      for (const onnx::AttributeProto& a : node.attribute()) {
        if (!a.has_g() && a.graphs_size() == 0) continue;
        if (before == nullptr) {
          scope_copied_ += defined.size();
          if (scope_copied_ > kMaxScopeCopies) {
            Budget("its subgraphs see too many names (more than 5 x 10^7 copied)");
            return;
          }
          before = std::make_shared<const Scope>(defined);
        }
        if (a.has_g()) pending_.push_back({&a.g(), nullptr, depth + 1, before});
        for (const onnx::GraphProto& g : a.graphs()) pending_.push_back({&g, nullptr, depth + 1, before});
      }
      for (const std::string& output : node.output()) defined.insert(output);
      attributes_ += static_cast<std::uint64_t>(node.attribute_size());
      if (attributes_ > kMaxAttributes) {
        Budget("it has more than 10^6 attributes");
        return;
      }
      for (const onnx::AttributeProto& a : node.attribute()) {
        // An unnamed node (a Constant usually is) is named by its operator and index.
        const std::string named =
            (node.name().empty() ? node.op_type() + "#" + std::to_string(i) : node.name()) + "." + a.name();
        if (a.has_t()) Tensor(a.t(), named, std::nullopt, /*listed=*/false);
        for (const onnx::TensorProto& t : a.tensors()) Tensor(t, named, std::nullopt, false);
        if (a.has_sparse_tensor()) SparseAttribute(a.sparse_tensor(), named);
        for (const onnx::SparseTensorProto& t : a.sparse_tensors()) SparseAttribute(t, named);
      }
    }
  }

  // A sparse tensor in an attribute (a Constant's sparse_value): both of its tensors checked.
  void SparseAttribute(const onnx::SparseTensorProto& sparse, const std::string& name) {
    Tensor(sparse.values(), name, std::nullopt, /*listed=*/false);
    Tensor(sparse.indices(), name + " (indices)", std::nullopt, /*listed=*/false);
  }

  // Checks a tensor's sizes and external data; lists it when it is an initializer.
  void Tensor(const onnx::TensorProto& t, const std::string& name,
              std::optional<std::vector<std::uint64_t>> sparse_dims, bool listed = true) {
    const ElementType* type = FindElementType(t.data_type());
    const std::string shown = QuoteForMessage(name, 80);
    std::vector<std::uint64_t> dims;
    std::optional<std::uint64_t> numel = 1;
    for (std::int64_t d : t.dims()) {
      if (d < 0) {
        Report(Diag::kOnnxTensorInvalid, "Tensor " + shown + " has the negative dimension " + std::to_string(d) + ".");
        return;
      }
      dims.push_back(static_cast<std::uint64_t>(d));
      if (numel) numel = CheckedMul(*numel, static_cast<std::uint64_t>(d));
    }
    if (type == nullptr) {
      Report(Diag::kOnnxTensorInvalid,
             "Tensor " + shown + " has data_type " + std::to_string(t.data_type()) + ", which ONNX does not define.");
      return;
    }
    const bool external = t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0;
    if (!numel) {
      Report(Diag::kOnnxTensorInvalid, "Tensor " + shown + " has a shape whose element count overflows 64 bits.");
      return;
    }
    if (external) {
      const bool inline_data = t.has_raw_data() || t.float_data_size() > 0 || t.int32_data_size() > 0 ||
                               t.string_data_size() > 0 || t.int64_data_size() > 0 || t.double_data_size() > 0 ||
                               t.uint64_data_size() > 0;
      if (inline_data) {
        Report(Diag::kOnnxTensorInvalid, "Tensor " + shown +
                                             " keeps its data externally and also carries data of its own: onnx's "
                                             "checker refuses it, and loaders disagree on which data they use.");
      }
      const auto bits = type->bits > 0 ? CheckedMul(*numel, type->bits) : std::nullopt;
      ExternalData(t, name, bits ? std::optional<std::uint64_t>((*bits + 7) / 8) : std::nullopt);
    } else if (t.has_raw_data() && type->bits > 0) {
      const auto bits = CheckedMul(*numel, type->bits);
      const std::uint64_t want = bits ? (*bits + 7) / 8 : 0;
      if (!bits || t.raw_data().size() != want) {
        Report(Diag::kOnnxTensorInvalid, "Tensor " + shown + " holds " + std::to_string(t.raw_data().size()) +
                                             " bytes of raw_data, not the " + std::to_string(want) + " its shape and " +
                                             std::string(type->token) + " need.");
      }
    } else if (!t.has_raw_data()) {
      const std::uint64_t per = (t.data_type() == 14 || t.data_type() == 15) ? 2 : 1;
      std::uint64_t typed = 0;
      for (int count : {t.float_data_size(), t.int32_data_size(), t.string_data_size(), t.int64_data_size(),
                        t.double_data_size(), t.uint64_data_size()}) {
        typed += static_cast<std::uint64_t>(count);
      }
      const auto want = CheckedMul(*numel, per);
      const bool packed_small = type->bits == 4;  // two 4-bit values per int32 value
      if (!packed_small && typed != 0 && (!want || typed != *want)) {
        Report(Diag::kOnnxTensorInvalid, "Tensor " + shown + " holds " + std::to_string(typed) +
                                             " typed values, not the " + (want ? std::to_string(*want) : "?") +
                                             " its shape needs.");
      }
    }
    if (!listed) return;
    StoredTensor s;
    s.name = name;
    s.dtype = std::string(type->token);
    s.shape = sparse_dims ? *sparse_dims : dims;
    s.complete = true;
    if (const DtypeInfo* info = FindSafetensorsDtype(type->token)) s.element = info->id;
    wf_.tensors.push_back(std::move(s));
  }

  void ExternalData(const onnx::TensorProto& t, const std::string& name, std::optional<std::uint64_t> expected) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL && t.external_data_size() == 0) return;
    std::optional<std::string> location;
    OnnxFacts::ExternalData ref;
    for (const onnx::StringStringEntryProto& e : t.external_data()) {
      if (e.key() == "location") location = e.value();
      if (e.key() == "offset") ref.offset_text = e.value();
      if (e.key() == "length") ref.length_text = e.value();
    }
    const std::string where = location.value_or(std::string());
    if (auto reason = EscapeReason(where)) {
      Report(Diag::kOnnxExternalDataEscape, "The external data location of tensor " + QuoteForMessage(name, 80) + ", " +
                                                QuoteForMessage(where, 120) + ", " + *reason + ".");
      return;
    }
    if (facts_.external.size() < kMaxInitializers) {
      ref.tensor = name;
      ref.location = where;
      ref.expected = expected;
      facts_.external.push_back(std::move(ref));
    }
    if (unread_.insert(where).second && unread_.size() <= 8) {
      Report(Diag::kOnnxExternalDataUnread, "Tensor " + QuoteForMessage(name, 80) + " keeps its data in " +
                                                QuoteForMessage(where, 120) + ": audit the folder to check " +
                                                QuoteForMessage(where, 120) + ".");
    }
  }

  // Names the unknown fields of every message of the model (reflection, an explicit stack).
  void UnknownFields(const google::protobuf::Message& root, std::string_view /*what*/) {
    std::vector<const google::protobuf::Message*> stack{&root};
    std::set<int> numbers;
    while (!stack.empty()) {
      const google::protobuf::Message* m = stack.back();
      stack.pop_back();
      const google::protobuf::Reflection* r = m->GetReflection();
      const google::protobuf::UnknownFieldSet& unknown = r->GetUnknownFields(*m);
      for (int i = 0; i < unknown.field_count() && numbers.size() < 16; ++i) numbers.insert(unknown.field(i).number());
      std::vector<const google::protobuf::FieldDescriptor*> fields;
      r->ListFields(*m, &fields);
      for (const google::protobuf::FieldDescriptor* f : fields) {
        if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
        if (f->is_repeated()) {
          for (int i = 0; i < r->FieldSize(*m, f); ++i) stack.push_back(&r->GetRepeatedMessage(*m, f, i));
        } else {
          stack.push_back(&r->GetMessage(*m, f));
        }
      }
    }
    if (numbers.empty()) return;
    std::string listed;
    for (int n : numbers) listed += (listed.empty() ? "" : ", ") + std::to_string(n);
    Report(Diag::kOnnxUnknownField, "The model holds fields its schema (ONNX 1.12) does not define (field numbers " +
                                        listed + "): a runtime that knows them reads what the audit cannot.");
  }

  void Budget(const std::string& why) {
    Report(Diag::kOnnxBudgetExceeded, "The model is not read further: " + why + ".");
    stopped_ = true;
  }

  void Report(Diag kind, std::string message) { report_(kind, 0, std::move(message)); }

  const FileReporter& report_;
  WeightFile& wf_;
  std::vector<Pending> pending_;
  std::uint64_t scope_copied_ = 0;
  std::map<std::string, std::set<std::string>> custom_;
  std::set<std::pair<std::string, std::string>> local_functions_;  ///< (domain, name)
  std::set<std::string> unread_;
  std::uint64_t nodes_ = 0;
  OnnxFacts& facts_;
  std::uint64_t initializers_ = 0;
  std::uint64_t attributes_ = 0;
  bool stopped_ = false;
};

// Feeds protobuf from the file, 1 MiB at a time.
class FileStream final : public google::protobuf::io::CopyingInputStream {
 public:
  explicit FileStream(const RandomAccessFile& file) : file_(file) {}
  int Read(void* buffer, int size) override {
    const std::uint64_t left = file_.size() - at_;
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, static_cast<std::uint64_t>(size)));
    if (n == 0) return 0;
    if (auto read = file_.ReadAt(at_, std::span(static_cast<std::byte*>(buffer), n)); !read) {
      error_ = read.error();
      return -1;
    }
    at_ += n;
    return static_cast<int>(n);
  }
  [[nodiscard]] const boost::system::error_code& error() const { return error_; }

 private:
  const RandomAccessFile& file_;
  std::uint64_t at_ = 0;
  boost::system::error_code error_;
};

IoResult<WeightFile> ReadOnnx(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;
  const FileReporter report(wf.name, sink);
  auto facts = std::make_shared<OnnxFacts>();
  if (file->size() > kMaxBytes) {
    report(Diag::kOnnxBudgetExceeded, 0,
           "The model is " + std::to_string(file->size()) +
               " bytes, past protobuf's limit of 2 GiB - 1: it is not read (large models keep their weights as "
               "external data).");
    wf.file = std::move(file);
    return wf;
  }
  onnx::ModelProto model;
  bool parsed = false;
  FileStream source(*file);
  {
    google::protobuf::io::CopyingInputStreamAdaptor adaptor(&source, 1 << 20);
    google::protobuf::io::CodedInputStream coded(&adaptor);
    coded.SetTotalBytesLimit(static_cast<int>(kMaxBytes));
    coded.SetRecursionLimit(kRecursionLimit);
    parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  if (source.error()) return source.error();
  if (!parsed) {
    report(Diag::kOnnxInvalid, 0,
           "The file does not parse as an ONNX ModelProto (a truncated or corrupt message, a wrong wire type, or "
           "messages nested past 64 levels).");
    wf.file = std::move(file);
    return wf;
  }
  facts->ir_version = model.ir_version();
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    facts->opset_imports.emplace_back(opset.domain(), opset.version());
  }
  ModelWalker(report, wf, *facts).Walk(model);
  wf.valid = true;
  wf.format_facts = std::move(facts);
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

// An external data number as onnx's loader reads it (int(value)): decimal digits only here.
std::optional<std::uint64_t> ExternalNumber(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

// Inside a model folder (formats.md section 7): each location names a regular file of the
// folder, opened through the folder's source (component by component, never through a link),
// and offset + length lie within it with length = numel x element size. The files it names
// are claimed as the model's own.
IoResult<void> ResolveOnnxExternalData(const WeightFile& wf, const ArtifactSource& folder, DiagnosticSink& sink,
                                       std::vector<std::string>& claimed) {
  const auto* facts = wf.FactsOf<OnnxFacts>();
  if (facts == nullptr || facts->external.empty()) return {};
  auto entries = folder.List();
  if (!entries) return entries.error();
  std::map<std::string, const DirectoryEntry*, std::less<>> by_name;
  for (const DirectoryEntry& e : *entries) by_name.emplace(e.name, &e);
  const std::size_t slash = wf.name.rfind('/');
  const std::string base = slash == std::string::npos ? std::string() : wf.name.substr(0, slash + 1);
  const FileReporter report(wf.name, sink);
  std::map<std::string, std::uint64_t> sizes;  // located files, by folder path
  std::size_t reported = 0;
  for (const OnnxFacts::ExternalData& ref : facts->external) {
    std::string path = base;
    for (std::size_t from = 0; from <= ref.location.size();) {  // "./" components dropped, as os.path.join reads them
      const std::size_t end = std::min(ref.location.find('/', from), ref.location.size());
      const std::string_view part = std::string_view(ref.location).substr(from, end - from);
      if (!part.empty() && part != ".") path.append(part).append(end < ref.location.size() ? "/" : "");
      from = end + 1;
    }
    if (!path.empty() && path.back() == '/') path.pop_back();
    const std::string tensor = QuoteForMessage(ref.tensor, 80);
    const std::string location = QuoteForMessage(ref.location, 120);
    auto size = sizes.find(path);
    if (size == sizes.end()) {
      const auto it = by_name.find(path);
      if (it == by_name.end() || it->second->kind != EntryKind::kRegular) {
        if (++reported <= 64) {
          const std::string_view what = it == by_name.end()                       ? "not a file of the folder"
                                        : it->second->kind == EntryKind::kSymlink ? "a symbolic link (never followed)"
                                                                                  : "not a regular file";
          std::string message = "Tensor " + tensor;
          message.append(" keeps its data in ").append(location).append(", which is ").append(what);
          message += ": onnx.load fails or reads what the link or device gives.";
          report(Diag::kOnnxExternalDataMissing, 0, std::move(message));
        }
        continue;
      }
      auto opened = folder.Open(path);
      if (!opened) return opened.error();
      size = sizes.emplace(path, (*opened)->size()).first;
      claimed.push_back(path);
    }
    const std::uint64_t file_size = size->second;
    const auto offset = ref.offset_text.empty() ? std::optional<std::uint64_t>(0) : ExternalNumber(ref.offset_text);
    const auto length = ref.length_text ? ExternalNumber(*ref.length_text) : std::nullopt;
    std::string why;
    if (!offset) {
      why = "its offset " + QuoteForMessage(ref.offset_text, 40) + " is not an unsigned integer";
    } else if (ref.length_text && !length) {
      why = "its length " + QuoteForMessage(*ref.length_text, 40) + " is not an unsigned integer";
    } else if (*offset > file_size) {
      why = "its offset " + std::to_string(*offset) + " is past the end of the " + std::to_string(file_size) +
            "-byte file";
    } else if (length && *length > file_size - *offset) {
      why = "offset " + std::to_string(*offset) + " + length " + std::to_string(*length) + " is past the end of the " +
            std::to_string(file_size) + "-byte file";
    } else if (ref.expected && (length ? *length : file_size - *offset) != *ref.expected) {
      why = std::string(length ? "its length is " : "the rest of the file is ") +
            std::to_string(length ? *length : file_size - *offset) + " bytes, not the " +
            std::to_string(*ref.expected) + " its shape and type need";
    }
    if (!why.empty() && ++reported <= 64) {
      std::string message = "Tensor " + tensor;
      message.append("'s external data in ").append(location).append(" does not fit: ").append(why).append(".");
      report(Diag::kOnnxExternalDataRange, 0, std::move(message));
    }
  }
  return {};
}

void OnnxInInventory(std::span<const std::byte> /*head*/, const std::string& /*description*/, InventoryItem& item) {
  item.kind = InventoryClass::kAnalysedWeights;
  item.description = "an ONNX model";
}

}  // namespace

void onnx_model::OnnxFacts::Describe(boost::json::object& fields) const {
  fields["ir_version"] = ir_version;
  boost::json::array opsets;
  for (const auto& [domain, version] : opset_imports) opsets.push_back({{"domain", domain}, {"version", version}});
  fields["opset_imports"] = std::move(opsets);
}

constexpr std::array<NameSuffix, 1> kOnnxNames{{
    {".onnx", std::nullopt, "an ONNX model"},
}};

const InputFormat formats::kOnnxFormat{
    .kind = InputKind::kOnnx,
    .sniff = &SniffOnnx,
    .read = &ReadOnnx,
    .inventory = &OnnxInInventory,
    .container = PolyglotContainer::kOnnx,
    .resolve_in_folder = &ResolveOnnxExternalData,
    .lone_file_diagnostic = Diag::kOnnxExternalDataUnread,
    .names = kOnnxNames,
};

}  // namespace ckpt
