// Declarations and resolution of the [workload] section.
#include "models/network/workload_config.h"

#include <cmath>
#include <fstream>
#include <optional>

#include "core/error.h"
#include "models/network/faults.h"
#include "models/workloads/collective_workload.h"
#include "models/workloads/collectives.h"
#include "models/workloads/llm.h"
#include "models/workloads/mapping.h"

namespace hx::net {
namespace {

wl::Algorithm parse_algorithm(const std::string& name) {
  const auto& names = wl::algorithm_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<wl::Algorithm>(i);
  }
  throw std::logic_error("unknown algorithm " + name);  // ParamSpec::choice checked it
}

// Bytes per second of endpoint `e`'s first injection link.
double injection_bandwidth(const NetworkContext& net, uint32_t e) {
  std::vector<PortSpec> ports;
  net.topology->ports(net.topology->endpoint_component(e), ports);
  const LinkClass& c = net.topology->link_classes()[ports.at(0).link_class];
  return c.flits_per_cycle * static_cast<double>(net.router.flit_bytes) / net.cycle.seconds();
}

// The job's ranks on the network's endpoints. `ranks` 0: as many as workload.ranks says.
wl::Mapping make_mapping(const ParamSet& w, const NetworkContext& net, uint32_t ranks) {
  const uint32_t endpoints = net.topology->num_endpoints();
  const auto configured = static_cast<uint32_t>(w.integer("ranks"));
  if (ranks == 0) ranks = configured == 0 ? endpoints : configured;
  if (configured != 0 && configured != ranks) {
    throw InputError("workload.ranks = " + std::to_string(configured) + " but the parallelism " +
                     "needs " + std::to_string(ranks) + " ranks");
  }
  if (ranks > endpoints) {
    throw InputError("workload.ranks = " + std::to_string(ranks) + " exceeds the " +
                     std::to_string(endpoints) + " endpoints of the network");
  }
  if (w.text("mapping") == "topology") {
    std::vector<uint32_t> order = net.topology->ring_order();
    if (order.empty()) return wl::Mapping::linear(ranks, endpoints);
    order.resize(ranks);
    return wl::Mapping::list(std::move(order), endpoints);
  }
  return wl::Mapping::parse(w.text("mapping"), w.text("mapping_spec"), ranks,
                            net.topology->endpoint_dims(), "workload.mapping");
}

// α of the analytic times: configured, or the zero-load latency between endpoints a and b.
double alpha_of(const ParamSet& w, const NetworkContext& net, uint32_t a, uint32_t b) {
  const double alpha = static_cast<double>(w.time("alpha").count_ps()) * 1e-12;
  if (alpha > 0 || a == b) return alpha;
  return static_cast<double>(zero_load_latency(net, a, b).count_ps()) * 1e-12;
}

// B of the analytic times: configured, or endpoint e's injection link.
double bandwidth_of(const ParamSet& w, const NetworkContext& net, uint32_t e) {
  const double b = w.bandwidth("bandwidth").bytes_per_second();
  return b > 0 ? b : injection_bandwidth(net, e);
}

// Ranks run T innermost, then C: a model-parallel group is T x C consecutive ranks, each of
// which must sit in the group's first endpoint's endpoint group.
void check_model_parallel(const ParamSet& llm, const wl::Mapping& mapping, const Topology& t) {
  const auto mp = static_cast<uint32_t>(llm.integer("tp") * llm.integer("cp"));
  for (uint32_t r = 0; r < mapping.ranks(); ++r) {
    const uint32_t head = mapping.endpoint(r - r % mp), e = mapping.endpoint(r);
    if (t.endpoint_group(e) == t.endpoint_group(head)) continue;
    throw InputError("llm.tp = " + std::to_string(llm.integer("tp")) + " (x llm.cp = " +
                     std::to_string(llm.integer("cp")) + "): the model-parallel group of ranks " +
                     std::to_string(r - r % mp) + "-" + std::to_string(r - r % mp + mp - 1) +
                     " spans endpoints " + std::to_string(head) + " and " + std::to_string(e) +
                     " of different HB domains, and this network joins domains along rails "
                     "only (rail-only §2.2: a model-parallel group fits in an HB domain)");
  }
}

std::unique_ptr<wl::Workload> make_llm(const ParamSet& w, const ParamSet& llm,
                                       const NetworkContext& net, uint64_t seed) {
  uint64_t ranks = 1;
  for (const char* dim : {"tp", "cp", "ep", "dp", "pp"}) ranks *= llm.integer(dim);
  if (ranks > net.topology->num_endpoints()) {
    throw InputError("llm: tp*cp*ep*dp*pp = " + std::to_string(ranks) +
                     " chips, but the network "
                     "has " +
                     std::to_string(net.topology->num_endpoints()) + " endpoints");
  }
  wl::Mapping mapping = make_mapping(w, net, static_cast<uint32_t>(ranks));
  if (net.topology->confines_model_parallel()) check_model_parallel(llm, mapping, *net.topology);
  const uint32_t first = mapping.endpoint(0);
  const uint32_t second = mapping.endpoint(ranks > 1 ? 1 : 0);
  const double alpha = alpha_of(w, net, first, second);
  const double bandwidth = bandwidth_of(w, net, first);
  // A hierarchical DP all-reduce's HB domains are the topology's endpoint groups.
  const Topology& t = *net.topology;
  return wl::make_llm_workload(
      llm, std::move(mapping), alpha, bandwidth, w.bandwidth("local_bandwidth").bytes_per_second(),
      [&t](uint32_t e) { return t.endpoint_group(e); }, seed);
}

std::unique_ptr<wl::Workload> make_trace(const std::string& path, const NetworkContext& net,
                                         const InputFiles& files) {
  if (path.empty()) throw InputError("workload.kind = 'trace' needs workload.trace = FILE");
  std::vector<wl::TraceFlow> flows;
  if (files.read_trace) {
    flows = files.read_trace(path);
  } else {
    std::ifstream in(path);
    if (!in) throw InputError("workload.trace = '" + path + "': cannot open the file");
    flows = wl::parse_trace_csv(in, path);
  }
  const uint32_t endpoints = net.topology->num_endpoints();
  wl::validate_trace(flows, endpoints, net.router.flit_bytes, path);
  return std::make_unique<wl::TraceWorkload>(flows, endpoints);
}

std::unique_ptr<wl::Workload> make_chakra(const ParamSet& w, const NetworkContext& net,
                                          const InputFiles& files) {
  const std::string& path = w.text("trace");
  if (path.empty()) throw InputError("workload.kind = 'chakra' needs workload.trace = PREFIX");
  if (!files.read_chakra) throw InputError("workload.kind = 'chakra': no Chakra reader built in");
  const std::vector<wl::ChakraRank> ranks = files.read_chakra(path);
  wl::ChakraOptions options;
  options.all_reduce = parse_algorithm(w.text("algorithm"));
  options.all_to_all = parse_algorithm(w.text("chakra_all_to_all"));
  options.flops_per_s = w.real("chakra_flops");
  for (const ParamSet& g : w.tables("chakra_groups")) {
    std::vector<uint32_t> members;
    for (const int64_t r : g.list<int64_t>("ranks")) members.push_back(static_cast<uint32_t>(r));
    if (!options.groups.emplace(g.text("name"), std::move(members)).second) {
      throw InputError("workload.chakra_groups: group '" + g.text("name") + "' given twice");
    }
  }
  if (const std::string& file = w.text("chakra_groups_file"); !file.empty()) {
    if (!files.read_chakra_groups) throw InputError("workload.chakra_groups_file: no reader");
    for (auto& [name, members] : files.read_chakra_groups(file)) {
      if (!options.groups.emplace(name, std::move(members)).second) {
        throw InputError("workload.chakra_groups_file = '" + file + "': group '" + name +
                         "' is in workload.chakra_groups too");
      }
    }
  }
  return std::make_unique<wl::ChakraWorkload>(
      ranks, make_mapping(w, net, static_cast<uint32_t>(ranks.size())), std::move(options));
}

std::unique_ptr<wl::Workload> make_collective(const ParamSet& w, const NetworkContext& net) {
  const uint32_t endpoints = net.topology->num_endpoints();
  const wl::Mapping mapping = make_mapping(w, net, 0);
  wl::CollectiveSpec spec;
  const auto& ops = wl::collective_names();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] == w.text("collective")) spec.op = static_cast<wl::Collective>(i);
  }
  spec.algorithm = parse_algorithm(w.text("algorithm"));
  spec.global_algorithm = parse_algorithm(w.text("global_algorithm"));
  spec.bytes = w.bytes("bytes").count();
  spec.rows = static_cast<uint32_t>(w.integer("rows"));
  spec.cols = static_cast<uint32_t>(w.integer("cols"));
  spec.join_halves = w.flag("join_halves");
  spec.local = static_cast<uint32_t>(w.integer("local"));
  spec.global_rows = static_cast<uint32_t>(w.integer("global_rows"));
  spec.global_cols = static_cast<uint32_t>(w.integer("global_cols"));
  // One group (workload.group), or every strided group of workload.groups at once.
  std::vector<wl::CollectiveSpec> specs;
  std::optional<wl::StridedPartition> strided;  // how the groups split the ranks, if they do
  const std::string& partition = w.text("groups");
  if (partition.empty()) {
    for (uint32_t r : wl::parse_group(w.text("group"), mapping.ranks(), "workload.group")) {
      spec.members.push_back(mapping.endpoint(r));
    }
    if (w.text("group") == "all") strided = wl::StridedPartition{mapping.ranks(), 1};
    specs.push_back(std::move(spec));
  } else {
    if (w.text("group") != "all") {
      throw InputError("workload.groups = '" + partition + "' and workload.group = '" +
                       w.text("group") + "': set one of them (groups splits all ranks)");
    }
    const wl::StridedPartition p =
        wl::parse_partition(partition, mapping.ranks(), "workload.groups");
    strided = p;
    for (uint32_t first : p.firsts(mapping.ranks())) {
      specs.push_back(spec);
      for (uint32_t r : wl::strided_group(first, p.size, p.stride)) {
        specs.back().members.push_back(mapping.endpoint(r));
      }
    }
  }
  wl::check_collective(specs[0], "workload");  // the others differ in their members only

  // Auto α and B: between the first two members (ring neighbours), the first member's link.
  const std::vector<uint32_t>& members = specs[0].members;
  const double alpha = alpha_of(w, net, members[0], members[members.size() > 1]);
  const double bandwidth = bandwidth_of(w, net, members[0]);
  double local = w.bandwidth("local_bandwidth").bytes_per_second();
  if (local == 0) local = bandwidth;
  std::optional<wl::RankLayout> layout;
  if (strided) layout = wl::RankLayout{mapping, *strided};
  return std::make_unique<wl::CollectiveWorkload>(
      std::move(specs), endpoints, static_cast<uint32_t>(w.integer("repeat")),
      static_cast<uint32_t>(w.integer("ring_window")), alpha, bandwidth, local, std::move(layout));
}

}  // namespace

std::vector<ParamSpec> workload_params() {
  std::vector<std::string> algorithms = wl::algorithm_names();
  return {
      ParamSpec::choice("kind", "synthetic", {"synthetic", "collective", "llm", "trace", "chakra"},
                        "synthetic: the [traffic] pattern; collective: one collective over a "
                        "group; llm: one training iteration ([llm]); trace: replay workload.trace; "
                        "chakra: replay the Chakra execution trace workload.trace"),
      ParamSpec::choice("collective", "all_reduce", wl::collective_names(), "kind = collective"),
      ParamSpec::choice("algorithm", "ring", algorithms, "collective algorithm"),
      ParamSpec::bytes("bytes", "1MiB",
                       "V: data per member (all-to-all: the buffer each member sends out)"),
      ParamSpec::integer("repeat", 1, "run the collective this many times back to back")
          .range(1, 1e6),
      ParamSpec::integer("injection_queues", 8,
                         "messages an endpoint injects at once, packet by packet in turn (a "
                         "NIC's send queues); 1: one message after another")
          .range(1, 1024),
      ParamSpec::integer("ring_window", 64,
                         "ring and bidir_ring: steps per program phase, so an endpoint holds "
                         "O(window) ops of a long ring, not O(p)")
          .range(1, 1e9),
      ParamSpec::integer("ranks", 0, "job size in ranks; 0: one per endpoint").range(0, 1e9),
      ParamSpec::text("group", "all",
                      "the group's ranks: all, a list 0,2,4, a range 0-15 or start:stride:count"),
      ParamSpec::text("groups", "",
                      "run the collective in every group of size:stride at once: the ranks "
                      "split into RailX Table 4's strided groups {i, i+stride, ...} of size "
                      "members (CP: C:T, DP: D:TC); \"\": the one group workload.group"),
      ParamSpec::choice("mapping", "linear", {"linear", "node_major", "list", "topology"},
                        "ranks to endpoints: rank r on endpoint r; ranks filling blocks of the "
                        "endpoint grid (mapping_spec = block shape, e.g. 2x2); a list; or the "
                        "topology's ring order (InfiniteHBD: each TP ring's GPUs in ring "
                        "order, ring after ring; linear where a topology has none)"),
      ParamSpec::text("mapping_spec", "", "node_major: block shape AxB; list: endpoints by rank"),
      ParamSpec::integer("rows", 0, "ring_2d / 2D direct: the group as rows x cols").range(0, 1e9),
      ParamSpec::integer("cols", 0, "ring_2d / 2D direct: the group as rows x cols").range(0, 1e9),
      ParamSpec::flag("join_halves", false,
                      "ring_2d / 2D direct (and a hierarchical one's global step): a member "
                      "starts each stage of either half only once both halves' stage before it "
                      "is done there, so the halves stay in step as RailX Eq. 7 assumes"),
      ParamSpec::integer("local", 0, "hierarchical: members per node").range(0, 1e9),
      ParamSpec::choice("global_algorithm", "ring_2d", algorithms,
                        "hierarchical: the algorithm among nodes"),
      ParamSpec::integer("global_rows", 0, "hierarchical ring_2d: nodes as rows x cols")
          .range(0, 1e9),
      ParamSpec::integer("global_cols", 0, "hierarchical ring_2d: nodes as rows x cols")
          .range(0, 1e9),
      ParamSpec::time("alpha", "0ps",
                      "α of the analytic time; 0: the zero-load latency between the first two "
                      "members"),
      ParamSpec::bandwidth("bandwidth", "0bps",
                           "B of the analytic time; 0: the first member's injection link"),
      ParamSpec::bandwidth("local_bandwidth", "0bps",
                           "hierarchical: B inside a node for the analytic time (llm: B_F of the "
                           "two-stage DP all-reduce); 0: = bandwidth"),
      ParamSpec::flag("traffic_matrix", true,
                      "write /traffic_matrix: bytes per (source, destination, traffic type) "
                      "(each endpoint holds a row per peer it sent to until the end)"),
      ParamSpec::text("trace", "",
                      "kind = trace: a .csv or .h5 flow trace (docs/WORKLOADS.md); kind = chakra: "
                      "the trace's PREFIX (files PREFIX.<rank>.et) or its directory "
                      "(docs/workloads/chakra.md)"),
      ParamSpec::real("chakra_flops", 0,
                      "kind = chakra: FLOP/s of a chip, for compute nodes that give num_ops but "
                      "no duration; 0: such nodes are refused")
          .range(0, 1e20),
      ParamSpec::choice("chakra_all_to_all", "direct",
                        wl::algorithm_names_for(wl::Collective::kAllToAll, false),
                        "kind = chakra: the all-to-all algorithm (workload.algorithm is the "
                        "reduce-scatter, all-gather and all-reduce one)"),
      ParamSpec::tables("chakra_groups",
                        {ParamSpec::text("name", "", "the process group's pg_name"),
                         ParamSpec::list("ranks", ParamSpec::integer("", 0, "").range(0, 1e9), {},
                                         "its trace ranks, in group-rank order")},
                        "kind = chakra: process groups, e.g. [{name = \"tp0\", ranks = [0, 1]}]; "
                        "a collective without pg_name runs over every rank"),
      ParamSpec::text("chakra_groups_file", "",
                      "kind = chakra: a JSON file of more process groups, {\"pg_name\": [ranks]} "
                      "(ASTRA-sim's comm-group format); relative to the working directory"),
  };
}

std::unique_ptr<wl::Workload> make_workload(const ParamSet& workload, const ParamSet& llm,
                                            const NetworkContext& net, const InputFiles& files,
                                            uint64_t seed) {
  const std::string& kind = workload.text("kind");
  if (kind == "synthetic") return nullptr;
  if (kind == "collective") return make_collective(workload, net);
  if (kind == "llm") return make_llm(workload, llm, net, seed);
  if (kind == "chakra") return make_chakra(workload, net, files);
  return make_trace(workload.text("trace"), net, files);
}

SimTime zero_load_latency(const NetworkContext& net, uint32_t src, uint32_t dst) {
  const Topology& t = *net.topology;
  std::vector<PortSpec> ports;
  t.ports(t.endpoint_component(src), ports);
  SimTime latency = ports.at(0).latency;
  ComponentId at = ports[0].peer;
  PortId in = ports[0].peer_port;
  Packet packet;
  packet.src = src;
  packet.dst = dst;
  std::vector<Packet> starts;
  const LinksAt at_start(nullptr, SimTime::zero());
  net.routing->start_states(t.node(at).index, &at_start, packet, starts);
  packet = starts.at(0);
  Candidates candidates;
  for (uint32_t step = 0; t.node(at).kind == NodeKind::kRouter; ++step) {
    if (step > 4 * t.diameter() + 8) throw std::logic_error("zero_load_latency: no path");
    candidates.clear();
    net.routing->route(t.node(at).index, in, packet, candidates);
    const Candidate c = candidates[0];
    ports.clear();
    t.ports(at, ports);
    latency = latency + net.router.pipeline + ports.at(c.port).latency;
    packet.vc = c.vc;
    if (t.node(ports[c.port].peer).kind == NodeKind::kRouter) ++packet.hops;
    in = ports[c.port].peer_port;
    at = ports[c.port].peer;
  }
  return latency;
}

}  // namespace hx::net
