// Flow-trace replay: a list of flows (source, destination, bytes, earliest start, flows to wait
// for) becomes one program per endpoint. Reading the files lives in io/trace_file.h (HDF5 must
// stay out of models/); this part parses CSV text, validates flows and generates the programs.
// Formats and rules: docs/workloads/traces.md.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "models/workloads/program.h"

namespace hx::wl {

struct TraceFlow {
  uint64_t id = 0;  // unique within the trace
  uint32_t src = 0;
  uint32_t dst = 0;
  uint64_t bytes = 0;
  int64_t start_ps = 0;        // earliest start, from time 0
  std::vector<uint64_t> deps;  // ids of flows that must be done before this one starts
  uint64_t row = 0;            // CSV line number or HDF5 row index, for messages
};

/// Parses a CSV trace: header `id,src,dst,bytes,start,deps`, then one flow per line; blank lines
/// and lines starting with '#' are skipped. Throws InputError "NAME:LINE: reason" on the first
/// malformed line. Does not validate across flows (validate_trace does).
std::vector<TraceFlow> parse_trace_csv(std::istream& in, const std::string& name);

/// Checks the flows for a network of `endpoints` endpoints with flits of `flit_bytes` and throws
/// InputError "NAME:ROW: flow ID: reason" on the first problem: endpoint out of range, zero
/// bytes, more bytes than a message carries (2^32 - 1 flits), negative start, duplicate id,
/// unknown or self dependency, a dependency not local to the flow's source endpoint, a
/// dependency cycle. Sorts each flow's deps and drops repeated ones.
void validate_trace(std::vector<TraceFlow>& flows, uint32_t endpoints, uint64_t flit_bytes,
                    const std::string& name);

/// Replays validated flows: one phase for every endpoint that sends or receives a flow. A flow's
/// send waits for its start time (a kDelay op) and for the local op of each dependency: the
/// dependency's send if this endpoint sent it, else its recv. The tag of a flow's messages is its
/// index in `flows`. Holds about 40 bytes per flow plus 4 per dependency.
class TraceWorkload : public Workload {
 public:
  TraceWorkload(const std::vector<TraceFlow>& flows, uint32_t endpoints);

  uint32_t phases(uint32_t e) const override;
  void generate(uint32_t e, uint32_t phase, Program& out) const override;
  const std::vector<OpGroup>& groups() const override { return groups_; }

 private:
  struct Flow {
    uint32_t src;
    uint32_t dst;
    uint64_t bytes;
    int64_t start_ps;
  };

  std::vector<Flow> flows_;
  // Flow f's dependencies: positions in its source endpoint's local list,
  // dep_pos_[dep_begin_[f], dep_begin_[f + 1]).
  std::vector<uint64_t> dep_begin_;
  std::vector<uint32_t> dep_pos_;
  // Endpoint e's local list: the flows it sends or receives, in one global topological order,
  // local_[local_begin_[e], local_begin_[e + 1]).
  std::vector<uint64_t> local_begin_;
  std::vector<uint32_t> local_;
  std::vector<OpGroup> groups_;
};

}  // namespace hx::wl
