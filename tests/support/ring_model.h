// A small test model: N components on a bidirectional ring (port 0 to the next, port 1 to the
// previous), grouped as `outer` groups of `inner` groups of equal size. Components do nothing;
// it exists to test partitioning and wiring without a real model's rules.
#pragma once

#include <stdexcept>

#include "core/model.h"

namespace hx::testing {

class IdleComponent final : public Component {
 public:
  using Component::Component;
  void handle(const Event&) override {}
  void serialize(StateArchive&) override {}
};

class RingModel final : public Model {
 public:
  RingModel(ComponentId n, uint64_t outer, uint64_t inner, SimTime latency)
      : n_(n), outer_(outer), inner_(inner), latency_(latency) {
    if (n % (outer * inner) != 0) throw std::logic_error("RingModel: n % (outer*inner) != 0");
  }
  ComponentId num_components() const override { return n_; }
  std::vector<GroupLevel> group_levels() const override {
    return {{"outer", outer_}, {"inner", outer_ * inner_}};
  }
  ComponentRange group_range(std::size_t level, uint64_t g) const override {
    const uint64_t size = level == 0 ? n_ / outer_ : n_ / (outer_ * inner_);
    return {static_cast<ComponentId>(g * size), static_cast<ComponentId>((g + 1) * size)};
  }
  uint64_t weight(ComponentId id) const override { return weights_ ? 1 + id % 3 : 1; }
  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const ComponentId prev = (id + n_ - 1) % n_;
    out.push_back({(id + 1) % n_, 1, link_latency(id), 0});
    out.push_back({prev, 0, link_latency(prev), 0});
  }
  std::vector<TableSpec> tables() const override { return {}; }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext&) const override {
    return std::make_unique<IdleComponent>(id);
  }
  void use_uneven_weights() { weights_ = true; }
  /// The link from `every` - 1 to `every`, 2 * every - 1 to 2 * every, ... takes `latency`:
  /// segments of `every` components joined by short links, and long links between them.
  void use_long_links(ComponentId every, SimTime latency) {
    long_every_ = every;
    long_latency_ = latency;
  }

 private:
  ComponentId n_;
  uint64_t outer_, inner_;
  SimTime latency_;
  bool weights_ = false;
  ComponentId long_every_ = 0;
  SimTime long_latency_;

  // The latency of the link from `id` to id + 1.
  SimTime link_latency(ComponentId id) const {
    return long_every_ > 0 && (id + 1) % long_every_ == 0 ? long_latency_ : latency_;
  }
};

}  // namespace hx::testing
