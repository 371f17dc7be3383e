// Writes small Chakra execution traces with the protobuf library, for tests/workloads/chakra.sh:
//   chakra_writer ring PREFIX N BYTES              every rank one all-reduce of BYTES
//   chakra_writer pipeline PREFIX N BYTES US       rank r: recv from r-1, compute US, send to r+1
//   chakra_writer tp_layer PREFIX N TP BYTES OPS   compute OPS FLOPs, then an all-reduce of BYTES
//                                                  in process group "tp<k>" = ranks of block k
//   chakra_writer bad_type | cycle | undefined_pg | self_send PREFIX N   a trace hxsim refuses
//   chakra_writer random PREFIX N SEED STEPS       a random trace that must run to its end (for
//                                                  random testing): STEPS global steps, each a
//                                                  compute on some ranks, a send/recv pair or a
//                                                  collective over all ranks or process group
//                                                  "low" (the lower half) or "even"; every rank
//                                                  meets its steps in the global order
// Files PREFIX.<rank>.et: a GlobalMetadata, then nodes, each message length-delimited.
#include <google/protobuf/util/delimited_message_util.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "chakra/chakra_et.pb.h"

namespace {

using hx::chakra::Attribute;
using hx::chakra::Node;

void attr(Node& n, const std::string& name, int64_t v) {
  Attribute* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

void attr(Node& n, const std::string& name, const std::string& v) {
  Attribute* a = n.add_attr();
  a->set_name(name);
  a->set_string_val(v);
}

Node node(uint64_t id, hx::chakra::NodeType type, std::vector<uint64_t> deps = {}) {
  Node n;
  n.set_id(id);
  n.set_name("n" + std::to_string(id));
  n.set_type(type);
  for (const uint64_t d : deps) n.add_data_deps(d);
  return n;
}

void write(const std::string& prefix, int rank, const std::vector<Node>& nodes) {
  std::ofstream out(prefix + "." + std::to_string(rank) + ".et", std::ios::binary);
  hx::chakra::GlobalMetadata meta;
  meta.set_version("0.0.4");
  google::protobuf::util::SerializeDelimitedToOstream(meta, &out);
  for (const Node& n : nodes) google::protobuf::util::SerializeDelimitedToOstream(n, &out);
}

}  // namespace

// The random mode: a chain per rank in one global order of steps, so that sends and receives
// of a pair and the collectives of a group meet in the same order everywhere (nothing can wait
// for ever), plus extra dependencies on earlier nodes of the rank and computes off the chain.
void write_random(const std::string& prefix, int ranks, uint64_t seed, int steps) {
  std::mt19937_64 rng(seed);
  const auto below = [&](uint64_t n) {
    return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng);
  };
  std::vector<std::vector<Node>> nodes(static_cast<std::size_t>(ranks));
  std::vector<uint64_t> last(static_cast<std::size_t>(ranks), 0);  // 0: none yet
  const auto add = [&](int r, Node n, bool chained) {
    std::vector<Node>& mine = nodes[static_cast<std::size_t>(r)];
    n.set_id(mine.size() + 1);
    n.set_name("n" + std::to_string(n.id()));
    if (chained && last[static_cast<std::size_t>(r)] != 0)
      n.add_ctrl_deps(last[static_cast<std::size_t>(r)]);
    if (!mine.empty() && below(4) == 0) n.add_data_deps(1 + below(mine.size()));
    if (chained) last[static_cast<std::size_t>(r)] = n.id();
    mine.push_back(n);
  };
  const int64_t sizes[] = {1, 64, 4096, 65536, 1 << 20};
  const int types[] = {hx::chakra::ALL_REDUCE, hx::chakra::ALL_GATHER, hx::chakra::REDUCE_SCATTER,
                       hx::chakra::ALL_TO_ALL};
  for (int step = 0; step < steps; ++step) {
    const uint64_t kind = below(3);
    if (kind == 0) {  // compute on some ranks, on the chain or beside it
      for (int r = 0; r < ranks; ++r) {
        if (below(2) == 0) continue;
        Node c;
        c.set_type(hx::chakra::COMP_NODE);
        c.set_duration_micros(below(3));
        add(r, c, below(3) != 0);
      }
    } else if (kind == 1) {  // a message between two ranks
      const int a = static_cast<int>(below(ranks));
      const int b = static_cast<int>((a + 1 + below(ranks - 1)) % ranks);
      const int64_t bytes = sizes[below(5)], tag = static_cast<int64_t>(below(3));
      Node send, recv;
      send.set_type(hx::chakra::COMM_SEND_NODE);
      attr(send, "comm_dst", b);
      attr(send, "comm_size", bytes);
      attr(send, "comm_tag", tag);
      recv.set_type(hx::chakra::COMM_RECV_NODE);
      attr(recv, "comm_src", a);
      attr(recv, "comm_size", bytes);
      attr(recv, "comm_tag", tag);
      add(a, send, true);
      add(b, recv, true);
    } else {  // a collective over all ranks, the lower half or the even ones
      const uint64_t group = below(3);
      const int type = types[below(4)];
      const int64_t bytes = sizes[below(5)] * ranks;
      for (int r = 0; r < ranks; ++r) {
        if ((group == 1 && r >= ranks / 2) || (group == 2 && r % 2 != 0)) continue;
        Node c;
        c.set_type(hx::chakra::COMM_COLL_NODE);
        attr(c, "comm_type", type);
        attr(c, "comm_size", bytes);
        if (group != 0) attr(c, "pg_name", group == 1 ? "low" : "even");
        add(r, c, true);
      }
    }
  }
  for (int r = 0; r < ranks; ++r) write(prefix, r, nodes[static_cast<std::size_t>(r)]);
}

int main(int argc, char** argv) {
  if (argc >= 6 && std::string(argv[1]) == "random") {
    write_random(argv[2], std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 10),
                 std::atoi(argv[5]));
    return 0;
  }
  if (argc < 4) {
    std::cerr << "usage: chakra_writer KIND PREFIX N [...]\n";
    return 2;
  }
  const std::string kind = argv[1], prefix = argv[2];
  const int ranks = std::atoi(argv[3]);
  const auto arg = [&](int i) { return std::atoll(argv[i]); };
  for (int r = 0; r < ranks; ++r) {
    std::vector<Node> nodes;
    if (kind == "ring") {
      Node n = node(1, hx::chakra::COMM_COLL_NODE);
      attr(n, "comm_type", hx::chakra::ALL_REDUCE);
      attr(n, "comm_size", arg(4));
      nodes.push_back(n);
    } else if (kind == "pipeline") {
      std::vector<uint64_t> before;
      if (r > 0) {
        Node recv = node(1, hx::chakra::COMM_RECV_NODE);
        attr(recv, "comm_src", r - 1);
        attr(recv, "comm_size", arg(4));
        nodes.push_back(recv);
        before = {1};
      }
      Node compute = node(2, hx::chakra::COMP_NODE, before);
      compute.set_duration_micros(static_cast<uint64_t>(arg(5)));
      nodes.push_back(compute);
      if (r + 1 < ranks) {
        Node send = node(3, hx::chakra::COMM_SEND_NODE);
        send.add_ctrl_deps(2);
        attr(send, "comm_dst", r + 1);
        attr(send, "comm_size", arg(4));
        nodes.push_back(send);
      }
    } else if (kind == "tp_layer") {
      const int64_t tp = arg(4);
      Node compute = node(1, hx::chakra::COMP_NODE);
      attr(compute, "num_ops", arg(6));
      Node ar = node(2, hx::chakra::COMM_COLL_NODE, {1});
      attr(ar, "comm_type", hx::chakra::ALL_REDUCE);
      attr(ar, "comm_size", arg(5));
      attr(ar, "pg_name", "tp" + std::to_string(r / tp));
      nodes = {ar, compute};  // out of order: the reader sorts by dependencies
    } else if (kind == "bad_type") {
      nodes.push_back(node(1, static_cast<hx::chakra::NodeType>(9)));
    } else if (kind == "cycle") {
      nodes.push_back(node(1, hx::chakra::COMP_NODE, {2}));
      nodes.push_back(node(2, hx::chakra::COMP_NODE, {1}));
    } else if (kind == "undefined_pg") {
      Node n = node(1, hx::chakra::COMM_COLL_NODE);
      attr(n, "comm_type", hx::chakra::ALL_REDUCE);
      attr(n, "comm_size", 1024);
      attr(n, "pg_name", "dp");
      nodes.push_back(n);
    } else if (kind == "self_send") {
      Node n = node(1, hx::chakra::COMM_SEND_NODE);
      attr(n, "comm_dst", r);
      attr(n, "comm_size", 1024);
      nodes.push_back(n);
    } else {
      std::cerr << "chakra_writer: unknown kind " << kind << "\n";
      return 2;
    }
    write(prefix, r, nodes);
  }
  return 0;
}
