// Process groups (rank lists, ranges, strided patterns) and rank-to-endpoint mapping policies.
#include "models/workloads/mapping.h"

#include <charconv>
#include <numeric>
#include <stdexcept>

#include "core/error.h"
#include "core/text.h"

namespace hx::wl {
namespace {

// Splits on `sep`, trimming each item.
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> items;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = text.find(sep, begin);
    items.push_back(trim(text.substr(begin, end - begin)));
    if (end == std::string::npos) return items;
    begin = end + 1;
  }
}

// A decimal number; otherwise InputError saying what `item` should have been.
uint32_t number(const std::string& text, const std::string& item, const std::string& key,
                const std::string& expected) {
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw InputError(key + ": '" + item + "' is not " + expected);
  }
  return v;
}

const char* const kGroupSyntax = "a rank, a range first-last or a pattern start:stride:count";

uint64_t product(const std::vector<uint32_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), uint64_t{1},
                         [](uint64_t a, uint32_t b) { return a * b; });
}

std::string dims_text(const std::vector<uint32_t>& dims) {
  std::string s;
  for (uint32_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

}  // namespace

std::vector<uint32_t> parse_group(const std::string& text, uint32_t ranks, const std::string& key) {
  std::vector<uint32_t> group;
  if (trim(text) == "all") {
    group.resize(ranks);
    std::iota(group.begin(), group.end(), 0u);
    return group;
  }
  std::vector<bool> seen(ranks, false);
  auto add = [&](uint64_t r) {
    if (r >= ranks) {
      throw InputError(key + ": rank " + std::to_string(r) + " is out of range; there are " +
                       std::to_string(ranks) + " ranks");
    }
    if (seen[r]) throw InputError(key + ": rank " + std::to_string(r) + " appears twice");
    seen[r] = true;
    group.push_back(static_cast<uint32_t>(r));
  };
  for (const std::string& item : split(text, ',')) {
    const std::vector<std::string> strided = split(item, ':');
    const std::vector<std::string> range = split(item, '-');
    auto num = [&](const std::string& t) { return number(t, item, key, kGroupSyntax); };
    if (strided.size() == 3 && range.size() == 1) {
      const uint64_t start = num(strided[0]), stride = num(strided[1]), count = num(strided[2]);
      if (count == 0) throw InputError(key + ": '" + item + "' has no ranks");
      // Stops at the first bad rank, before a huge count costs anything.
      for (uint64_t k = 0; k < count; ++k) add(start + k * stride);
    } else if (range.size() == 2 && strided.size() == 1) {
      const uint64_t first = num(range[0]), last = num(range[1]);
      if (last < first) throw InputError(key + ": range '" + item + "' runs backwards");
      for (uint64_t r = first; r <= last; ++r) add(r);
    } else if (strided.size() == 1 && range.size() == 1) {
      add(num(item));
    } else {
      num("");  // throws the syntax error
    }
  }
  return group;
}

std::vector<uint32_t> strided_group(uint32_t rank, uint32_t size, uint32_t stride) {
  std::vector<uint32_t> group(size);
  const uint32_t base = rank - strided_rank(rank, size, stride) * stride;
  for (uint32_t k = 0; k < size; ++k) group[k] = base + k * stride;
  return group;
}

uint32_t strided_rank(uint32_t rank, uint32_t size, uint32_t stride) {
  if (size == 0 || stride == 0) throw std::logic_error("strided group of size or stride 0");
  return rank / stride % size;
}

std::vector<uint32_t> StridedPartition::firsts(uint32_t ranks) const {
  std::vector<uint32_t> out;
  for (uint32_t r = 0; r < ranks; ++r) {
    if (strided_rank(r, size, stride) == 0) out.push_back(r);
  }
  return out;
}

StridedPartition parse_partition(const std::string& text, uint32_t ranks, const std::string& key) {
  const std::vector<std::string> parts = split(text, ':');
  const char* expected = "size:stride, two whole numbers >= 1 (e.g. 4:16)";
  if (parts.size() != 2) throw InputError(key + ": '" + text + "' is not " + expected);
  StridedPartition p{number(parts[0], text, key, expected), number(parts[1], text, key, expected)};
  if (p.size == 0 || p.stride == 0) throw InputError(key + ": '" + text + "' is not " + expected);
  if (ranks % (uint64_t{p.size} * p.stride) != 0) {
    throw InputError(key + ": groups of " + std::to_string(p.size) + " ranks " +
                     std::to_string(p.stride) + " apart need a multiple of " +
                     std::to_string(uint64_t{p.size} * p.stride) + " ranks, but there are " +
                     std::to_string(ranks));
  }
  return p;
}

Mapping Mapping::linear(uint32_t ranks, uint32_t endpoints) {
  std::vector<uint32_t> list(ranks);
  std::iota(list.begin(), list.end(), 0u);
  return Mapping::list(std::move(list), endpoints);
}

// Rank r = block index * block size + offset inside the block; both are mixed-radix numbers with
// dimension 0 least significant, like endpoint indices.
Mapping Mapping::node_major(const std::vector<uint32_t>& grid, const std::vector<uint32_t>& block) {
  if (grid.empty() || block.size() != grid.size()) {
    throw InputError("mapping: block " + dims_text(block) + " and grid " + dims_text(grid) +
                     " need the same number of dimensions");
  }
  for (std::size_t d = 0; d < grid.size(); ++d) {
    if (block[d] == 0 || grid[d] % block[d] != 0) {
      throw InputError("mapping: block " + dims_text(block) + " does not divide the grid " +
                       dims_text(grid));
    }
  }
  const auto n = static_cast<uint32_t>(product(grid));
  const auto in_block = static_cast<uint32_t>(product(block));
  std::vector<uint32_t> list(n);
  for (uint32_t r = 0; r < n; ++r) {
    uint32_t offset = r % in_block, index = r / in_block;
    uint32_t e = 0, place = 1;
    for (std::size_t d = 0; d < grid.size(); ++d) {
      const uint32_t blocks = grid[d] / block[d];
      e += ((index % blocks) * block[d] + offset % block[d]) * place;
      index /= blocks;
      offset /= block[d];
      place *= grid[d];
    }
    list[r] = e;
  }
  return Mapping::list(std::move(list), n);
}

Mapping Mapping::list(std::vector<uint32_t> endpoints, uint32_t num_endpoints) {
  Mapping m;
  m.rank_.assign(num_endpoints, kNone);
  for (uint32_t r = 0; r < endpoints.size(); ++r) {
    const uint32_t e = endpoints[r];
    if (e >= num_endpoints) {
      throw InputError("mapping: rank " + std::to_string(r) + " on endpoint " + std::to_string(e) +
                       ", but there are " + std::to_string(num_endpoints) + " endpoints");
    }
    if (m.rank_[e] != kNone) {
      throw InputError("mapping: ranks " + std::to_string(m.rank_[e]) + " and " +
                       std::to_string(r) + " both on endpoint " + std::to_string(e));
    }
    m.rank_[e] = r;
  }
  m.endpoint_ = std::move(endpoints);
  return m;
}

Mapping Mapping::parse(const std::string& policy, const std::string& block_or_list, uint32_t ranks,
                       const std::vector<uint32_t>& grid, const std::string& key) {
  const uint64_t endpoints = product(grid);
  if (grid.empty() || endpoints > UINT32_MAX) {
    throw std::logic_error("mapping: a grid of " + std::to_string(grid.size()) + " dimensions");
  }
  if (ranks > endpoints) {
    throw InputError(key + ": " + std::to_string(ranks) + " ranks do not fit on " +
                     std::to_string(endpoints) + " endpoints");
  }
  try {
    if (policy == "linear") return linear(ranks, static_cast<uint32_t>(endpoints));
    if (policy == "list") {
      std::vector<uint32_t> list =
          parse_group(block_or_list, static_cast<uint32_t>(endpoints), key);
      if (list.size() != ranks) {
        throw InputError(key + ": the list places " + std::to_string(list.size()) +
                         " ranks, the job has " + std::to_string(ranks));
      }
      return Mapping::list(std::move(list), static_cast<uint32_t>(endpoints));
    }
    if (policy == "node_major") {
      std::vector<uint32_t> block;
      const char sep = block_or_list.find('x') != std::string::npos ? 'x' : ',';
      for (const std::string& d : split(block_or_list, sep)) {
        block.push_back(number(d, block_or_list, key, "a block shape such as 2x2"));
      }
      Mapping all = node_major(grid, block);
      all.endpoint_.resize(ranks);  // the first `ranks` ranks, block by block
      return Mapping::list(std::move(all.endpoint_), static_cast<uint32_t>(endpoints));
    }
  } catch (const InputError& e) {
    const std::string msg = e.what();
    if (msg.rfind(key + ":", 0) == 0) throw;
    throw InputError(key + ": " + msg);
  }
  throw InputError(key + ": unknown mapping policy '" + policy + "'" +
                   suggestion(policy, {"linear", "node_major", "list"}, "policies"));
}

uint32_t Mapping::rank_of(uint32_t e) const { return e < rank_.size() ? rank_[e] : kNone; }

}  // namespace hx::wl
