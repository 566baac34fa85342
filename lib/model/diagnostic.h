// Reader diagnostics: what a reader found wrong in the bytes it read, as a closed set of
// kinds with a location and a message. Readers know only these (they never name a rule or
// a severity); rules/reader_rules.cpp maps each kind to its catalog rule, as clang declares
// parser diagnostics at the bottom and clang-tidy maps them to check names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/finding.h"

namespace ckpt {

// X(Name): one diagnostic kind. The rule that reports it is rules/.../<kebab-name>.cpp.
#define CKPT_READER_DIAGNOSTICS(X)   \
  X(AttestEnvelopeInvalid)           \
  X(AttestForeignKey)                \
  X(AttestPayloadType)               \
  X(AttestPredicateUnknown)          \
  X(AttestSignatureInvalid)          \
  X(AttestStatementInvalid)          \
  X(AttestSubjectMismatch)           \
  X(AttestVerdictFail)               \
  X(ConfigTargetUnsafe)              \
  X(ConvertBigEndian)                \
  X(ConvertDtypeUnsupported)         \
  X(ConvertGroupRefused)             \
  X(ConvertMathBit)                  \
  X(ConvertNotContiguous)            \
  X(ConvertStorageMissing)           \
  X(ConvertViewsOverlap)             \
  X(DerivationInputMismatch)         \
  X(DerivationSourceMismatch)        \
  X(DerivationTensorMismatch)        \
  X(GgufAlignmentInvalid)            \
  X(GgufDataPastEnd)                 \
  X(GgufDuplicateKey)                \
  X(GgufDuplicateTensor)             \
  X(GgufHeaderInvalid)               \
  X(GgufLengthInvalid)               \
  X(GgufNestedArray)                 \
  X(GgufOffsetInvalid)               \
  X(GgufRankInvalid)                 \
  X(GgufShapeInvalid)                \
  X(GgufSplitIncomplete)             \
  X(GgufSplitInconsistent)           \
  X(GgufStringInvalid)               \
  X(GgufTensorNameInvalid)           \
  X(GgufTrailingData)                \
  X(GgufTypeUnknown)                 \
  X(GgufValueTypeInvalid)            \
  X(Hdf5BudgetExceeded)              \
  X(Hdf5ExternalLink)                \
  X(Hdf5ExternalStorage)             \
  X(Hdf5FilterUnsupported)           \
  X(Hdf5Invalid)                     \
  X(Hdf5ReaderFailed)                \
  X(Hdf5VirtualDataset)              \
  X(HeaderDuplicateKey)              \
  X(HeaderFieldType)                 \
  X(HeaderJsonSyntax)                \
  X(HeaderJsonTooDeep)               \
  X(HeaderNotObject)                 \
  X(HeaderNotUtf8)                   \
  X(HeaderSchemaVersionInvalid)      \
  X(HeaderSchemaVersionMissing)      \
  X(HeaderSchemaVersionTooNew)       \
  X(HeaderTooLarge)                  \
  X(IndexDuplicateKey)               \
  X(IndexJsonInvalid)                \
  X(IndexJsonTooDeep)                \
  X(IndexStructure)                  \
  X(IndexTooLarge)                   \
  X(InputCompressed)                 \
  X(InputNameMismatch)               \
  X(InputPolyglot)                   \
  X(InputShardAlone)                 \
  X(InputUnrecognised)               \
  X(JoblibArrayInvalid)              \
  X(JoblibCompressionInvalid)        \
  X(JoblibDecompressionBomb)         \
  X(JoblibEstimator)                 \
  X(KerasClassUnknown)               \
  X(KerasCodeLayer)                  \
  X(KerasConfigInvalid)              \
  X(KerasCustomObject)               \
  X(KerasFunctionUnsafe)             \
  X(KerasLambda)                     \
  X(KerasLibraryModule)              \
  X(KerasMemberUnexpected)           \
  X(KerasMetadataInvalid)            \
  X(KerasModuleUnsafe)               \
  X(ModelIndexInvalid)               \
  X(MsgpackArrayInvalid)             \
  X(MsgpackBudgetExceeded)           \
  X(MsgpackDepthExceeded)            \
  X(MsgpackDuplicateKey)             \
  X(MsgpackExtType)                  \
  X(MsgpackInvalid)                  \
  X(MsgpackTrailingData)             \
  X(NemoConfigInvalid)               \
  X(NemoTargetUnsafe)                \
  X(NemoWeightsMissing)              \
  X(NpzMemberSize)                   \
  X(NpzMemberUnexpected)             \
  X(NpzObjectArray)                  \
  X(NumpyHeaderInvalid)              \
  X(NumpyObjectArray)                \
  X(OmsBundleInvalid)                \
  X(OmsCertUntrusted)                \
  X(OmsCertUsage)                    \
  X(OmsDigestMismatch)               \
  X(OmsFileMissing)                  \
  X(OmsFileUnsigned)                 \
  X(OmsHashUnsupported)              \
  X(OmsIdentityMismatch)             \
  X(OmsKeyUnsupported)               \
  X(OmsKeyUntrusted)                 \
  X(OmsMediaType)                    \
  X(OmsMethodMismatch)               \
  X(OmsPayloadType)                  \
  X(OmsPredicateUnknown)             \
  X(OmsRootMismatch)                 \
  X(OmsSctInvalid)                   \
  X(OmsSignatureInvalid)             \
  X(OmsSignatureMissing)             \
  X(OmsSpecialFile)                  \
  X(OmsStatementInvalid)             \
  X(OmsSubjectInvalid)               \
  X(OmsSymlink)                      \
  X(OmsTlogInvalid)                  \
  X(OnnxBudgetExceeded)              \
  X(OnnxCustomDomain)                \
  X(OnnxExternalDataEscape)          \
  X(OnnxExternalDataMissing)         \
  X(OnnxExternalDataRange)           \
  X(OnnxExternalDataUnread)          \
  X(OnnxInvalid)                     \
  X(OnnxPythonOp)                    \
  X(OnnxTensorInvalid)               \
  X(OnnxUnknownField)                \
  X(PickleArgumentInvalid)           \
  X(PickleBudgetExceeded)            \
  X(PickleBuildUnsafe)               \
  X(PickleCallUnsafe)                \
  X(PickleDtypeUnsupported)          \
  X(PickleExtensionCode)             \
  X(PickleFrameInvalid)              \
  X(PickleGlobalUnsafe)              \
  X(PickleNestedLoader)              \
  X(PickleScannerImport)             \
  X(PickleStorageMismatch)           \
  X(PickleStreamMalformed)           \
  X(PickleTensorInvalid)             \
  X(PickleTensorName)                \
  X(PickleTrailingData)              \
  X(SafetensorsBufferSize)           \
  X(SafetensorsDtypeUnknown)         \
  X(SafetensorsDuplicateTensor)      \
  X(SafetensorsHeaderJson)           \
  X(SafetensorsHeaderNotUtf8)        \
  X(SafetensorsHeaderPastEnd)        \
  X(SafetensorsHeaderTooDeep)        \
  X(SafetensorsHeaderTooLarge)       \
  X(SafetensorsHeaderTooSmall)       \
  X(SafetensorsMetadataDuplicateKey) \
  X(SafetensorsMetadataInvalid)      \
  X(SafetensorsOffsetsNotContiguous) \
  X(SafetensorsSizeMisaligned)       \
  X(SafetensorsSizeMismatch)         \
  X(SafetensorsSizeOverflow)         \
  X(SafetensorsTensorEntryInvalid)   \
  X(SafetensorsTensorNameInvalid)    \
  X(TarChecksumInvalid)              \
  X(TarDataAfterEnd)                 \
  X(TarDeviceMember)                 \
  X(TarDuplicateMember)              \
  X(TarEndMarkerMissing)             \
  X(TarExtensionRepeated)            \
  X(TarFifoMember)                   \
  X(TarGlobalHeader)                 \
  X(TarHardlinkMember)               \
  X(TarHeaderInvalid)                \
  X(TarMemberLayout)                 \
  X(TarMemberPastEnd)                \
  X(TarMemberTypeUnsupported)        \
  X(TarNameConflict)                 \
  X(TarPathEscape)                   \
  X(TarSizeConflict)                 \
  X(TarSparseMember)                 \
  X(TarSymlinkMember)                \
  X(TemplateInvalid)                 \
  X(TemplateUnsafe)                  \
  X(TorchLegacyLayout)               \
  X(TorchscriptCode)                 \
  X(TorchscriptExport)               \
  X(TorchscriptNativeCode)           \
  X(WeightsFileEmpty)                \
  X(WeightsFormatGguf)               \
  X(WeightsFormatGitLfsPointer)      \
  X(WeightsFormatHtml)               \
  X(WeightsFormatNumpy)              \
  X(WeightsFormatPickle)             \
  X(WeightsFormatZip)                \
  X(ZipAmbiguous)                    \
  X(ZipCrcMismatch)                  \
  X(ZipHeaderMismatch)               \
  X(ZipMemberCompressed)             \
  X(ZipMemberUnexpected)             \
  X(ZipStructure)                    \
  /* end of the list: every X line ends with a backslash */

enum class Diag : std::uint8_t {
#define CKPT_DIAG_ENUM(name) k##name,
  CKPT_READER_DIAGNOSTICS(CKPT_DIAG_ENUM)
#undef CKPT_DIAG_ENUM
      kCount
};

struct Diagnostic {
  Diag kind = Diag::kCount;
  Location location;
  std::string message;  ///< a complete sentence
};

/// Where readers report. The audit engine forwards to findings under the mapped rules;
/// DiagnosticList keeps them (tests, fuzzers).
class DiagnosticSink {
 public:
  virtual ~DiagnosticSink() = default;
  virtual void Report(Diag kind, Location location, std::string message) = 0;
};

/// Reports diagnostics about one file at byte offsets (the binary readers' locations).
class FileReporter {
 public:
  FileReporter(std::string file, DiagnosticSink& sink) : file_(std::move(file)), sink_(sink) {}
  void operator()(Diag kind, std::uint64_t offset, std::string message) const {
    (*this)(kind, offset, std::move(message), std::nullopt, std::nullopt);
  }
  /// A finding about one global (and call) of a pickle, which a reviewed acceptance can name.
  void operator()(Diag kind, std::uint64_t offset, std::string message, std::optional<std::string> global,
                  std::optional<std::string> call) const {
    Location at;
    at.file = file_;
    at.byte_offset = offset;
    at.global = std::move(global);
    at.call = std::move(call);
    sink_.Report(kind, std::move(at), std::move(message));
  }
  /// A finding about the file as a whole (no offset to point at).
  void operator()(Diag kind, std::string message) const {
    Location at;
    at.file = file_;
    sink_.Report(kind, std::move(at), std::move(message));
  }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] DiagnosticSink& sink() const { return sink_; }

 private:
  std::string file_;
  DiagnosticSink& sink_;
};

class DiagnosticList final : public DiagnosticSink {
 public:
  void Report(Diag kind, Location location, std::string message) override {
    items.push_back({kind, std::move(location), std::move(message)});
  }
  std::vector<Diagnostic> items;
};

}  // namespace ckpt
