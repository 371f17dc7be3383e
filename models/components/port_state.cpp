#include "models/components/port_state.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "core/error.h"
#include "core/state_archive.h"

namespace hx::net {
namespace {

// The arrays start on 8-byte boundaries, counted in words of the buffer.
constexpr std::size_t words(std::size_t bytes) { return (bytes + 7) / 8; }

static_assert(std::is_trivially_destructible_v<PortState::Input>);
static_assert(alignof(PortState::Input) <= 8 && alignof(SimTime) <= 8);
static_assert(sizeof(PortState::Input) == 16, "four inputs a cache line");

}  // namespace

PortState::PortState(uint16_t ports, uint8_t vcs, uint32_t credits) : ports_(ports), vcs_(vcs) {
  const std::size_t n = ports;
  const std::size_t inputs_at = busy_words();
  const std::size_t free_at = inputs_at + words(n * sizeof(Input));
  const std::size_t outputs_at = free_at + words(n * sizeof(Link));
  block_words_ = static_cast<uint16_t>(words(vcs * (sizeof(uint32_t) + sizeof(PortId))));
  const std::size_t total = outputs_at + n * block_words_;
  buffer_ = std::make_unique<uint64_t[]>(total);  // zeroed
  busy_ = buffer_.get();
  inputs_ = reinterpret_cast<Input*>(buffer_.get() + inputs_at);
  std::uninitialized_default_construct_n(inputs_, n);
  links_ = reinterpret_cast<Link*>(buffer_.get() + free_at);
  std::uninitialized_default_construct_n(links_, n);
  outputs_ = buffer_.get() + outputs_at;
  for (PortId p = 0; p < ports; ++p) std::fill_n(port_credits(p), vcs, credits);  // pointers: 0
}

void PortState::serialize(StateArchive& ar, uint32_t router) {
  uint16_t ports = ports_;
  uint8_t vcs = vcs_;
  ar & ports & vcs;
  if (ports != ports_ || vcs != vcs_) {
    throw InputError("router " + std::to_string(router) + ": the checkpoint's record has " +
                     std::to_string(ports) + " ports x " + std::to_string(vcs) +
                     " VCs, this router " + std::to_string(ports_) + " x " +
                     std::to_string(vcs_) + " (another topology or [router] section?)");
  }
  for (std::size_t w = 0; w < busy_words(); ++w) ar & busy_[w];
  for (PortId p = 0; p < ports_; ++p) {
    ar& inputs_[p].free& inputs_[p].busy_vcs& inputs_[p].next_vc& links_[p].free;
  }
  for (PortId p = 0; p < ports_; ++p) ar.bytes(port_credits(p), vcs_ * sizeof(uint32_t));
  for (PortId p = 0; p < ports_; ++p) ar.bytes(port_pointers(p), vcs_ * sizeof(PortId));
}

}  // namespace hx::net
