// A test model whose work runs out: every component (or only component 0, `one_token`) starts
// one token that travels around a ring of links for `hops` hops and then stops. The last event
// happens at exactly hops * latency, so a run to a far end time must stop there, on any number
// of ranks.
#pragma once

#include "core/model.h"

namespace hx::testing {

class TokenComponent final : public Component {
 public:
  TokenComponent(ComponentId id, uint64_t hops, bool starts)
      : Component(id), hops_(hops), starts_(starts) {}
  void setup() override {
    if (starts_) send(0, 0, uint64_t{1});
  }
  void handle(const Event& e) override {
    ++received_;
    const auto hop = e.payload_as<uint64_t>();
    if (hop < hops_) send(0, 0, hop + 1);
  }
  void serialize(StateArchive&) override {}
  uint64_t received() const { return received_; }

 private:
  uint64_t hops_;
  bool starts_;
  uint64_t received_ = 0;
};

class TokenRing final : public Model {
 public:
  TokenRing(ComponentId n, ComponentId group, uint64_t hops, SimTime latency,
            bool one_token = false)
      : n_(n), group_(group), hops_(hops), latency_(latency), one_token_(one_token) {}
  ComponentId num_components() const override { return n_; }
  std::vector<GroupLevel> group_levels() const override { return {{"group", n_ / group_}}; }
  ComponentRange group_range(std::size_t, uint64_t g) const override {
    return {static_cast<ComponentId>(g * group_), static_cast<ComponentId>((g + 1) * group_)};
  }
  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    out.push_back({(id + 1) % n_, 1, latency_, 0});
    out.push_back({(id + n_ - 1) % n_, 0, latency_, 0});
  }
  std::vector<TableSpec> tables() const override { return {}; }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext&) const override {
    return std::make_unique<TokenComponent>(id, hops_, !one_token_ || id == 0);
  }

 private:
  ComponentId n_, group_;
  uint64_t hops_;
  SimTime latency_;
  bool one_token_;
};

}  // namespace hx::testing
