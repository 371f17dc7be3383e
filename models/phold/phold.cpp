// PHOLD model: the topology as pure functions of an LP id, and the LP component.
#include "models/phold/phold.h"

#include <boost/serialization/array.hpp>
#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "core/state_archive.h"

namespace hx::phold {
namespace {

constexpr uint16_t kEventKind = 1;

struct PholdPayload {
  uint64_t hops;  // how many events led to this one; keeps the payload non-trivial to check
};

std::vector<TableSpec> phold_tables() {
  return {TableSpec{
      "lps",
      "id",
      "one row per PHOLD logical process",
      {
          {"events", ColumnType::kU64, "1", "events handled"},
          {"remote_sent", ColumnType::kU64, "1", "events sent to another LP through a link"},
          {"local_sent", ColumnType::kU64, "1", "events scheduled for itself"},
          {"last_event_ps", ColumnType::kI64, "ps", "time of the last event handled (-1: none)"},
          {"checksum", ColumnType::kU64, "1",
           "hash of the (time, source, hops) sequence of handled events; equal checksums mean the "
           "LP saw the same events in the same order"},
      }}};
}

class PholdLp final : public Component {
 public:
  PholdLp(ComponentId id, const PholdConfig& config, const BuildContext& ctx)
      : Component(id),
        config_(config),
        rng_(ctx.seed, id, static_cast<uint64_t>(RngPurpose::kModel)),
        table_(&ctx.stats->table("lps")) {}

  void setup() override {
    for (uint32_t i = 0; i < config_.events_per_lp; ++i) {
      schedule(config_.min_delay + exponential(), kEventKind, PholdPayload{0});
    }
  }

  void handle(const Event& e) override {
    const auto payload = e.payload_as<PholdPayload>();
    ++events_;
    last_event_ = e.time();
    checksum_ = mix64(checksum_ ^ static_cast<uint64_t>(e.time().count_ps()) ^
                      (static_cast<uint64_t>(e.key.src) << 40) ^ payload.hops);

    const PholdPayload next{payload.hops + 1};
    if (num_ports() > 0 && rng_.bernoulli(config_.remote_probability)) {
      const auto p = static_cast<PortId>(rng_.below(num_ports()));
      send(p, kEventKind, next, exponential());
      ++remote_sent_;
    } else {
      schedule(config_.min_delay + exponential(), kEventKind, next);
      ++local_sent_;
    }
  }

  void finish() override {
    table_->add_row(id(), {events_, remote_sent_, local_sent_,
                           events_ ? last_event_.count_ps() : int64_t{-1}, checksum_});
  }

  void serialize(StateArchive& ar) override {
    ar & rng_ & events_ & remote_sent_ & local_sent_ & last_event_ & checksum_;
  }
  bool knows_event(uint16_t kind) const override { return kind == kEventKind; }

 private:
  SimTime exponential() {
    const double mean = static_cast<double>(config_.mean_delay.count_ps());
    // std::llround, inline: it was a library call costing 4% of an event. For x >= 0,
    // x - trunc(x) is exact, so this rounds halves away from zero exactly as llround does.
    const double x = rng_.exponential(mean);
    const auto whole = static_cast<int64_t>(x);
    return SimTime::ps(whole + (x - static_cast<double>(whole) >= 0.5 ? 1 : 0));
  }

  const PholdConfig& config_;  // the model's; the engine keeps the model alive past finish()
  Rng rng_;
  Table* table_;
  uint64_t events_ = 0;
  uint64_t remote_sent_ = 0;
  uint64_t local_sent_ = 0;
  SimTime last_event_;
  uint64_t checksum_ = 0;
};

class PholdModel final : public Model {
 public:
  explicit PholdModel(const PholdConfig& config) : config_(config) {}

  ComponentId num_components() const override { return config_.lps; }
  std::vector<GroupLevel> group_levels() const override {
    return {{"group", config_.lps / config_.group_size}};
  }
  ComponentRange group_range(std::size_t /*level*/, uint64_t group) const override {
    const auto begin = static_cast<ComponentId>(group * config_.group_size);
    return {begin, begin + config_.group_size};
  }

  // Port 2(j-1) reaches j groups ahead, port 2(j-1)+1 reaches j groups behind; the peer's
  // opposite port points back, so every link is symmetric.
  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const uint64_t n = config_.lps;
    for (uint32_t j = 1; j <= config_.neighbors; ++j) {
      const uint64_t d = static_cast<uint64_t>(j) * config_.group_size % n;
      const auto forward = static_cast<PortId>(2 * (j - 1));
      out.push_back({static_cast<ComponentId>((id + d) % n), static_cast<PortId>(forward + 1),
                     config_.link_latency, 0});
      out.push_back({static_cast<ComponentId>((id + n - d) % n), forward, config_.link_latency, 0});
    }
  }

  std::vector<TableSpec> tables() const override { return phold_tables(); }

  std::unique_ptr<Component> create(ComponentId id, const BuildContext& ctx) const override {
    return std::make_unique<PholdLp>(id, config_, ctx);
  }

 private:
  PholdConfig config_;
};

}  // namespace

PholdConfig config_from(const ParamSet& p) {
  PholdConfig c;
  c.lps = static_cast<ComponentId>(p.integer("lps"));
  c.group_size = static_cast<ComponentId>(p.integer("group_size"));
  c.neighbors = static_cast<uint32_t>(p.integer("neighbors"));
  c.remote_probability = p.real("remote_probability");
  c.mean_delay = p.time("mean_delay");
  c.min_delay = p.time("min_delay");
  c.link_latency = p.time("link_latency");
  c.events_per_lp = static_cast<uint32_t>(p.integer("events_per_lp"));
  return c;
}

std::unique_ptr<Model> make_model(const PholdConfig& c) {
  if (c.lps % c.group_size != 0) {
    throw InputError("phold.lps = " + std::to_string(c.lps) + " is not a multiple of " +
                     "phold.group_size = " + std::to_string(c.group_size));
  }
  const uint64_t groups = c.lps / c.group_size;
  if (c.neighbors >= groups) {
    throw InputError("phold.neighbors = " + std::to_string(c.neighbors) +
                     " must be less than the number of groups (" + std::to_string(groups) +
                     " = lps / group_size)");
  }
  if (c.neighbors > 0 && c.link_latency <= SimTime::zero()) {
    throw InputError("phold.link_latency = " + format_time(c.link_latency) +
                     ": expected a time > 0 (links carry the lookahead between ranks)");
  }
  if (c.remote_probability > 0 && c.neighbors == 0) {
    throw InputError("phold.remote_probability = " + std::to_string(c.remote_probability) +
                     " needs phold.neighbors >= 1 (remote events travel over links)");
  }
  return std::make_unique<PholdModel>(c);
}

void register_models(Registry& registry) {
  registry.add(ModelInfo{
      "phold",
      "PHOLD synthetic PDES benchmark: LPs exchanging events with exponential delays",
      {
          ParamSpec::integer("lps", 4096, "number of logical processes").range(1, 2e9),
          ParamSpec::integer("group_size", 256, "LPs per group; groups stay whole on one rank")
              .range(1, 2e9),
          ParamSpec::integer("neighbors", 1,
                             "each LP links to the LPs 1..neighbors groups ahead and behind")
              .range(0, 1000),
          ParamSpec::real("remote_probability", 0.01, "probability an event goes over a link")
              .range(0, 1),
          ParamSpec::time("mean_delay", "1ns", "mean of the exponential part of every delay"),
          ParamSpec::time("min_delay", "0ps", "fixed part of the delay of local events"),
          ParamSpec::time("link_latency", "100ns", "latency of every link (the lookahead)"),
          ParamSpec::integer("events_per_lp", 1, "events each LP starts with").range(1, 1e6),
      },
      {},
      phold_tables(),
      [](const ModelParams& p) { return make_model(config_from(p.section("phold"))); }});
}

}  // namespace hx::phold
