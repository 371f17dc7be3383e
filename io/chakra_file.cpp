// Chakra trace files: varint-delimited protobuf messages (chakra_file.h).
#include "io/chakra_file.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "chakra/chakra_et.pb.h"
#include "core/error.h"

namespace hx {
namespace {

namespace fs = std::filesystem;

// An integral attribute in whichever integer type the writer chose.
int64_t integer(const chakra::Attribute& a, const std::string& where) {
  switch (a.value_case()) {
    case chakra::Attribute::kInt32Val:
      return a.int32_val();
    case chakra::Attribute::kInt64Val:
      return a.int64_val();
    case chakra::Attribute::kUint32Val:
      return a.uint32_val();
    case chakra::Attribute::kUint64Val:
      return static_cast<int64_t>(a.uint64_val());
    case chakra::Attribute::kSint32Val:
      return a.sint32_val();
    case chakra::Attribute::kSint64Val:
      return a.sint64_val();
    default:
      break;
  }
  throw InputError(where + ": attribute " + a.name() + " is not an integer");
}

double number(const chakra::Attribute& a, const std::string& where) {
  if (a.value_case() == chakra::Attribute::kDoubleVal) return a.double_val();
  if (a.value_case() == chakra::Attribute::kFloatVal) return a.float_val();
  return static_cast<double>(integer(a, where));
}

wl::ChakraNode node_of(const chakra::Node& n, const std::string& file) {
  wl::ChakraNode out;
  out.id = n.id();
  out.name = n.name();
  out.type = n.type();
  out.deps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
  out.deps.insert(out.deps.end(), n.data_deps().begin(), n.data_deps().end());
  out.duration_us = n.duration_micros();
  const std::string where = file + ": node " + std::to_string(n.id());
  // Attributes hxsim does not read (is_cpu_op, involved_dim, tensor sizes, ...) are skipped.
  for (const chakra::Attribute& a : n.attr()) {
    if (a.name() == "num_ops") out.num_ops = number(a, where);
    if (a.name() == "comm_type") out.comm_type = static_cast<int32_t>(integer(a, where));
    if (a.name() == "comm_size") out.comm_size = integer(a, where);
    if (a.name() == "comm_src") out.comm_src = integer(a, where);
    if (a.name() == "comm_dst") out.comm_dst = integer(a, where);
    if (a.name() == "comm_tag") out.comm_tag = integer(a, where);
    if (a.name() == "pg_name") {
      if (a.value_case() == chakra::Attribute::kStringVal) {
        out.pg_name = a.string_val();
      } else {
        out.pg_name = std::to_string(integer(a, where));  // some writers number their groups
      }
    }
  }
  return out;
}

wl::ChakraRank read_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot open the file");
  google::protobuf::io::IstreamInputStream stream(&in);
  chakra::GlobalMetadata meta;
  bool clean_eof = false;
  if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &stream, &clean_eof) ||
      meta.version().empty()) {
    throw InputError(file +
                     ": not a Chakra execution trace (no GlobalMetadata with a version "
                     "first)");
  }
  wl::ChakraRank rank{file, {}};
  for (;;) {
    chakra::Node n;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&n, &stream, &clean_eof)) {
      if (clean_eof) break;
      throw InputError(file + ": truncated or corrupt after " + std::to_string(rank.nodes.size()) +
                       " nodes");
    }
    rank.nodes.push_back(node_of(n, file));
  }
  return rank;
}

}  // namespace

std::vector<wl::ChakraRank> read_chakra_trace(const std::string& path) {
  std::string prefix = path;
  int files_in_directory = -1;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const std::regex name(R"((.*)\.(\d+)\.et)");
    std::map<std::string, int> prefixes;
    for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
      std::smatch m;
      const std::string file = e.path().filename().string();
      if (std::regex_match(file, m, name)) ++prefixes[m[1].str()];
    }
    if (prefixes.size() != 1) {
      throw InputError("workload.trace = '" + path + "': expected the files NAME.<rank>.et of " +
                       "one trace in the directory, found " + std::to_string(prefixes.size()) +
                       " names");
    }
    prefix = (fs::path(path) / prefixes.begin()->first).string();
    files_in_directory = prefixes.begin()->second;
  }
  std::vector<wl::ChakraRank> ranks;
  for (uint32_t r = 0;; ++r) {
    const std::string file = prefix + "." + std::to_string(r) + ".et";
    if (!fs::exists(file, ec)) break;
    ranks.push_back(read_file(file));
  }
  if (ranks.empty()) {
    throw InputError("workload.trace = '" + path + "': no file " + prefix + ".0.et");
  }
  if (files_in_directory > static_cast<int>(ranks.size())) {
    throw InputError("workload.trace = '" + path + "': " + std::to_string(files_in_directory) +
                     " files, but " + prefix + "." + std::to_string(ranks.size()) +
                     ".et is missing");
  }
  return ranks;
}

std::map<std::string, std::vector<uint32_t>> read_chakra_groups(const std::string& path) {
  const std::string where = "workload.chakra_groups_file = '" + path + "'";
  std::ifstream in(path);
  if (!in) throw InputError(where + ": cannot open the file");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where + ": not JSON (" + e.what() + ")");
  }
  if (!json.is_object()) {
    throw InputError(where + ": expected an object of process groups, {\"name\": [ranks]}");
  }
  std::map<std::string, std::vector<uint32_t>> groups;
  for (const auto& [name, ranks] : json.items()) {
    if (!ranks.is_array() || ranks.empty()) {
      throw InputError(where + ": group '" + name + "' is not a non-empty array of ranks");
    }
    std::vector<uint32_t>& members = groups[name];
    for (const nlohmann::json& r : ranks) {
      if (!r.is_number_integer() || r.get<int64_t>() < 0 || r.get<int64_t>() > 1'000'000'000) {
        throw InputError(where + ": group '" + name + "' has " + r.dump() + ", not a rank");
      }
      members.push_back(r.get<uint32_t>());
    }
  }
  return groups;
}

}  // namespace hx
