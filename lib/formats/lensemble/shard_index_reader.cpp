#include "lib/formats/lensemble/shard_index_reader.h"

#include "lib/core/text.h"
#include "lib/formats/json_file_reader.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

IoResult<ShardIndex> ReadShardIndex(const RandomAccessFile& file, DiagnosticSink& sink) {
  ShardIndex index;
  index.json.name = "weights.index.json";
  const JsonFileDiagnostics json_rules{Diag::kIndexTooLarge,    Diag::kIndexJsonTooDeep,  Diag::kIndexJsonInvalid,
                                       Diag::kIndexJsonInvalid, Diag::kIndexDuplicateKey, Diag::kIndexJsonInvalid};
  if (auto read = ReadJsonFile(file, json_rules, index.json, sink); !read) return read.error();
  if (!index.json.parsed) return index;
  const json::Value root = index.json.doc.root();
  const Diag structure = Diag::kIndexStructure;

  for (const json::Member& m : root.Members()) {
    if (m.key != "metadata" && m.key != "weight_map") {
      sink.Report(structure, index.json.At(m.key_offset, "/" + json::EscapePointerToken(m.key)),
                  "weights.index.json has unknown top-level key " + QuoteForMessage(m.key) +
                      "; only metadata and weight_map are allowed.");
    }
  }
  auto metadata = root.Find("metadata");
  if (!metadata || !metadata->is(json::Type::kObject)) {
    sink.Report(
        structure, metadata ? index.json.At(metadata->offset(), "/metadata") : index.json.At(0, ""),
        metadata ? "metadata in weights.index.json is not an object." : "weights.index.json has no metadata object.");
  } else if (auto total = metadata->Find("total_size"); !total) {
    sink.Report(structure, index.json.At(metadata->offset(), "/metadata"),
                "metadata in weights.index.json has no total_size.");
  } else if (auto t = total->AsInteger()) {
    index.total_size = t;
  } else {
    sink.Report(structure, index.json.At(total->offset(), "/metadata/total_size"),
                "metadata.total_size in weights.index.json is " +
                    (total->is(json::Type::kNumber) ? std::string(total->Raw()) : total->Describe()) +
                    ", not a JSON integer.");
  }

  auto map = root.Find("weight_map");
  if (!map || !map->is(json::Type::kObject)) {
    sink.Report(structure, map ? index.json.At(map->offset(), "/weight_map") : index.json.At(0, ""),
                map ? "weight_map in weights.index.json is not an object." : "weights.index.json has no weight_map.");
    return index;
  }
  WeightMap mappings;
  mappings.Reserve(map->Size(), index.json.text().size());
  bool ok = true;
  std::string scratch;
  for (const json::Member& m : map->Members()) {
    const std::string pointer = "/weight_map/" + json::EscapePointerToken(m.key);
    if (!m.value.is(json::Type::kString)) {
      sink.Report(structure, index.json.At(m.value.offset(), pointer),
                  "weight_map entry " + QuoteForMessage(m.key) + " is " + std::string(json::TypeName(m.value.type())) +
                      ", not a shard file name.");
      ok = false;
      continue;
    }
    mappings.Add(m.key, index.json.doc.StringAt(m.value.tape_index(), scratch), m.key_offset, m.value.offset());
  }
  if (ok) {
    mappings.Finish();
    index.weight_map = std::move(mappings);
  }
  return index;
}

}  // namespace ckpt
