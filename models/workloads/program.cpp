// Building programs op by op.
#include "models/workloads/program.h"

#include <stdexcept>
#include <string>

namespace hx::wl {

uint32_t Program::add(Op op, std::span<const uint32_t> after) {
  const auto index = static_cast<uint32_t>(ops.size());
  for (uint32_t d : after) {
    if (d >= index) {
      throw std::logic_error("program op " + std::to_string(index) + " depends on op " +
                             std::to_string(d) + ", which is not earlier");
    }
  }
  op.dep_begin = static_cast<uint32_t>(deps.size());
  op.dep_count = static_cast<uint32_t>(after.size());
  deps.insert(deps.end(), after.begin(), after.end());
  ops.push_back(op);
  return index;
}

uint32_t Program::send(uint32_t dst, uint64_t bytes, uint32_t tag, uint32_t group,
                       std::span<const uint32_t> after) {
  if (bytes == 0) throw std::logic_error("program: a send of 0 bytes");
  Op op;
  op.kind = OpKind::kSend;
  op.peer = dst;
  op.tag = tag;
  op.group = group;
  op.bytes = bytes;
  return add(op, after);
}

uint32_t Program::recv(uint32_t src, uint64_t bytes, uint32_t tag, uint32_t group,
                       std::span<const uint32_t> after) {
  Op op;
  op.kind = OpKind::kRecv;
  op.peer = src;
  op.tag = tag;
  op.group = group;
  op.bytes = bytes;
  return add(op, after);
}

uint32_t Program::compute(int64_t ps, uint32_t group, std::span<const uint32_t> after) {
  Op op;
  op.kind = OpKind::kCompute;
  op.group = group;
  op.compute_ps = ps;
  return add(op, after);
}

uint32_t Program::wait(uint32_t group, std::span<const uint32_t> after) {
  Op op;
  op.kind = OpKind::kWait;
  op.group = group;
  return add(op, after);
}

std::vector<std::string> Workload::traffic_types() const {
  std::vector<std::string> names;
  for (const OpGroup& g : groups()) names.push_back(g.name);
  return names;
}

const char* dim_name(Dim d) {
  switch (d) {
    case Dim::kTP:
      return "TP";
    case Dim::kCP:
      return "CP";
    case Dim::kEP:
      return "EP";
    case Dim::kDP:
      return "DP";
    case Dim::kPP:
      return "PP";
    default:
      return "none";
  }
}

}  // namespace hx::wl
