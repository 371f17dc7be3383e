// Reading Chakra execution traces (protobuf) into plain nodes for models/workloads/chakra.h:
// protobuf stays on this side of the models/ boundary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/workloads/chakra.h"

namespace hx {

/// The per-rank files of a trace: PREFIX.0.et, PREFIX.1.et, ... (Chakra's naming), or, when
/// `path` is a directory, its files NAME.<rank>.et of one NAME. Each file is a GlobalMetadata
/// message and then nodes, each message preceded by its length as a varint. Every rank reads
/// the files itself, serially. InputError naming the file (and the node) when no file is found,
/// ranks are missing, a file is truncated or is not a Chakra trace, or an attribute hxsim reads
/// has the wrong type.
std::vector<wl::ChakraRank> read_chakra_trace(const std::string& path);

/// A process-group file of the format ASTRA-sim reads beside Chakra traces
/// (workload.chakra_groups_file): one JSON object whose keys are the groups' pg_name and whose
/// values are their ranks, e.g. {"0": [0, 1, 2, 3], "1": [4, 5, 6, 7]}. InputError naming the
/// file on a missing or malformed file, a value that is not an array of ranks, or a rank out of
/// range.
std::map<std::string, std::vector<uint32_t>> read_chakra_groups(const std::string& path);

}  // namespace hx
