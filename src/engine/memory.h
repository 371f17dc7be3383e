// Memory figures for users sizing a run (issue #8): the resident peak of this process, and the
// build memory per component measured on a sample of the model, from which `hxsim validate`
// estimates what each rank of a partition will need before anything large is built.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>

#include "core/model.h"

namespace hx {

/// Peak resident set of this process so far, in bytes (getrusage).
uint64_t peak_rss_bytes();

struct BuildMemorySample {
  std::string group;        // what was built: "<level> 0" or "components [0, n)"
  uint64_t components = 0;  // how many
  uint64_t bytes = 0;       // heap bytes they took, with their ports and state
  bool partial = false;     // set-up stopped early (`enough`): bytes is a lower bound
  double per_component() const {
    return components ? static_cast<double>(bytes) / static_cast<double>(components) : 0.0;
  }
};

/// Builds one whole group of the model (the coarsest level whose groups have at most
/// `max_components`, else the first `max_components` components) as a rank would, sets it up
/// (workloads generate their first phase's programs and post its sends) and measures the heap it
/// takes (engine/heap.h). Later phases, events in flight and output rows come on top.
/// Before each component's set-up `enough` sees the sample so far and may stop it there (then
/// `partial`): a sample's own set-up can outgrow the node, as programs of a direct all-to-all
/// grow with the endpoints.
BuildMemorySample sample_build_memory(
    const Model& model, uint64_t seed,
    const std::function<bool(const BuildMemorySample&)>& enough = nullptr,
    uint64_t max_components = 20000);

/// Bytes of the tables every rank holds whole from the start (TableKind::kSummed: counters such
/// as a time series, whose rows grow with the run's length over its bins), ids included.
uint64_t summed_table_bytes(const Model& model);

/// What the node offers this process: MemAvailable of /proc/meminfo (the kernel's estimate of
/// what can be allocated without swapping), and the lowest memory limit of the cgroups it is in
/// (a Slurm job's; UINT64_MAX: none), in bytes.
struct NodeMemory {
  uint64_t available = UINT64_MAX;
  uint64_t cgroup_limit = UINT64_MAX;
  std::string cgroup_file;  // where cgroup_limit was read
};
NodeMemory node_memory();

/// Memory this node offers, in bytes: MemAvailable of /proc/meminfo, or a cgroup limit of this
/// process if lower; `source` says which.
uint64_t available_memory_bytes(std::string& source);

/// Collective: how many ranks of `comm` share this rank's node (its memory).
int ranks_on_node(MPI_Comm comm);

/// Collective: throws InputError on every rank when building `model` on `comm` would take more
/// memory than some node has: the build memory per component (sample_build_memory, on rank 0),
/// times a balanced share of the components per rank, against the node's available memory
/// (MemAvailable of /proc/meminfo, or a cgroup limit of the process if lower) divided among its
/// ranks, or `rank_limit` bytes per rank if that is not 0 (--memory-limit). Checked before
/// anything large is built, so such a run stops with the numbers instead of growing until the
/// OOM killer ends it.
void check_build_memory(MPI_Comm comm, const Model& model, uint64_t seed, uint64_t rank_limit = 0);

}  // namespace hx
