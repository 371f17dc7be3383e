// The [workload] section of every network model: synthetic traffic (the [traffic] section alone)
// or message-DAG programs — a collective over a process group, an LLM-training iteration
// ([llm] section) or a flow trace — and the α–β parameters of the analytic times.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/params.h"
#include "models/network/faults.h"
#include "models/network/network_context.h"
#include "models/workloads/chakra.h"
#include "models/workloads/program.h"
#include "models/workloads/trace.h"

namespace hx::net {

std::vector<ParamSpec> workload_params();

/// Readers the application provides for model inputs kept in files (workload traces, fault
/// schedules in HDF5): io/ owns the file formats, so models never open HDF5 files themselves.
/// Without one, a trace is read as CSV and an HDF5 schedule is refused.
struct InputFiles {
  std::function<std::vector<wl::TraceFlow>(const std::string& path)> read_trace;
  std::function<std::vector<wl::ChakraRank>(const std::string& path)> read_chakra;
  std::function<std::map<std::string, std::vector<uint32_t>>(const std::string& path)>
      read_chakra_groups;
  FaultFileReader read_faults;
};

/// nullptr for workload.kind = "synthetic". `net` must hold the topology, routing, router and
/// traffic settings and the cycle time; `seed` is the run's (sim.seed). InputError naming the
/// key on bad values.
std::unique_ptr<wl::Workload> make_workload(const ParamSet& workload, const ParamSet& llm,
                                            const NetworkContext& net, const InputFiles& files,
                                            uint64_t seed);

/// The zero-load latency of one packet's head from endpoint `src` to `dst` along the routing's
/// first choices: link latencies plus a router pipeline delay per router (α of the α–β model).
SimTime zero_load_latency(const NetworkContext& net, uint32_t src, uint32_t dst);

}  // namespace hx::net
