// Partitioners map components to ranks (DESIGN §5). A partition is a pure function of the model
// and the rank count, so every rank computes the same one without communication; the group and
// round-robin partitioners need none of the network in memory (metis holds its graph).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/model.h"

namespace hx {

class Partition {
 public:
  virtual ~Partition() = default;
  virtual int ranks() const = 0;
  virtual int rank_of(ComponentId id) const = 0;
  /// The components `rank` owns, ascending.
  virtual std::vector<ComponentId> components_of(int rank) const = 0;
  /// Position of `id` in components_of(rank_of(id)).
  virtual uint32_t local_index(ComponentId id) const = 0;
  /// Human-readable: the partitioner's name and what it kept whole.
  virtual std::string describe() const = 0;
};

/// Names accepted by make_partition, for the `sim.partitioner` choice.
std::vector<std::string> partitioner_names();

/// "group": whole groups of the model in contiguous, weight-balanced blocks (the default); for
/// a model with a hub (Model::hub()), its components dealt in turn (hub_partitioner.h).
/// "round_robin": component id modulo ranks; cuts almost every link, for tests.
/// "metis": METIS k-way on clusters of links too short to cut (metis_partitioner.h).
std::unique_ptr<Partition> make_partition(const std::string& name, const Model& model, int ranks);

}  // namespace hx
