// Chakra execution-trace replay (`workload.kind = "chakra"`, docs/workloads/chakra.md): the
// nodes of each rank's trace become that rank's program. Reading the protobuf files lives in
// io/chakra_file.h (protobuf stays out of models/); this part turns plain nodes into ops:
// compute nodes into compute ops (their duration, or their FLOPs at the chip's rate), send and
// recv nodes into messages, collective nodes into the hxsim collective over their process group
// with the configured algorithm, every control and data dependency kept.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/workloads/collectives.h"
#include "models/workloads/mapping.h"
#include "models/workloads/program.h"

namespace hx::wl {

/// Chakra's node types and collective types, by their numbers in the schema.
enum class ChakraType : int32_t {
  kMetadata = 1,
  kMemLoad = 2,
  kMemStore = 3,
  kCompute = 4,
  kSend = 5,
  kRecv = 6,
  kCollective = 7,
};
enum class ChakraCollective : int32_t {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};

/// One node as the file holds it; absent attributes keep these defaults.
struct ChakraNode {
  uint64_t id = 0;
  std::string name;
  int32_t type = 0;            // ChakraType, or another number (refused by name)
  std::vector<uint64_t> deps;  // ctrl_deps then data_deps
  uint64_t duration_us = 0;    // duration_micros
  double num_ops = -1;         // attr num_ops (FLOPs); < 0: absent
  int32_t comm_type = -1;      // attr comm_type (ChakraCollective); -1: absent
  int64_t comm_size = -1;      // attr comm_size (bytes); -1: absent
  int64_t comm_src = -1;       // attr comm_src (the sending rank of a recv)
  int64_t comm_dst = -1;       // attr comm_dst (the receiving rank of a send)
  int64_t comm_tag = 0;        // attr comm_tag
  std::string pg_name;         // attr pg_name: the process group; empty: every rank
};

/// One rank's file: its name (for messages) and its nodes in file order.
struct ChakraRank {
  std::string file;
  std::vector<ChakraNode> nodes;
};

struct ChakraOptions {
  Algorithm all_reduce = Algorithm::kRing;  // workload.algorithm for the reducing collectives
  Algorithm all_to_all = Algorithm::kDirect;
  double flops_per_s = 0;  // workload.chakra_flops: a compute node's rate when it has no duration
  std::map<std::string, std::vector<uint32_t>> groups;  // process groups: name -> trace ranks
};

/// Rank r of the trace runs on mapping.endpoint(r). Checks every node up front and throws
/// InputError "FILE: node ID (NAME): reason" on the first problem: an unknown node type, a
/// collective type hxsim has no generator for, a missing or negative size, a peer or process
/// group out of range or undefined, a rank outside its own collective's group, a dependency on a
/// node the file lacks, a dependency cycle, a compute node with FLOPs but no duration and no
/// workload.chakra_flops. Holds every rank's ops (about 40 bytes per node).
class ChakraWorkload : public Workload {
 public:
  ChakraWorkload(const std::vector<ChakraRank>& ranks, Mapping mapping, ChakraOptions options);
  uint32_t phases(uint32_t e) const override;
  void generate(uint32_t e, uint32_t phase, Program& out) const override;
  const std::vector<OpGroup>& groups() const override { return groups_; }

 private:
  // A node reduced to what its op needs, in an order where dependencies come first.
  struct Step {
    ChakraType type;
    uint32_t peer = 0;       // send/recv: endpoint; collective: index into specs_
    uint32_t tag = 0;        // send/recv
    uint64_t bytes = 0;      // send/recv
    int64_t compute_ps = 0;  // compute
    uint32_t group = 0;      // OpGroup
    uint32_t dep_begin = 0;  // positions in this rank's steps: deps_[dep_begin, +dep_count)
    uint32_t dep_count = 0;
    uint32_t member = 0;  // collective: this rank's place in the group
  };
  Mapping mapping_;
  std::vector<std::vector<Step>> steps_;  // per trace rank
  std::vector<std::vector<uint32_t>> deps_;
  std::vector<CollectiveSpec> specs_;
  std::vector<OpGroup> groups_;
};

}  // namespace hx::wl
