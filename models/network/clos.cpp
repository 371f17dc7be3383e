// Sizing of the shared folded Clos (clos.h) from a switch radix.
#include "models/network/clos.h"

#include "core/error.h"
#include "core/ids.h"

namespace hx::net {

Clos sized_clos(uint32_t terminals, uint32_t radix, bool wide_spines, const std::string& key,
                const std::string& what) {
  const std::string at = key + " = " + std::to_string(radix) + ": ";
  if (radix % 2 != 0) {
    throw InputError(at + "expected an even radix (a leaf has as many ports up as down)");
  }
  if (terminals <= radix) return Clos::single(terminals);
  const std::string of = what + " of " + std::to_string(terminals) + " endpoints";
  const uint32_t h = radix / 2;
  if (terminals % h != 0) {
    throw InputError(at + of + " does not fill leaves of radix/2 = " + std::to_string(h) +
                     " endpoints");
  }
  const uint64_t leaves = terminals / h;
  uint64_t spines = (leaves * h + radix - 1) / radix;
  if (spines > h) {
    if (!wide_spines) {
      throw InputError(at + of + " needs a third tier (two tiers of radix " +
                       std::to_string(radix) + " join at most " +
                       std::to_string(uint64_t{radix} * h) + "); raise the radix");
    }
    spines = h;
  }
  if (h % spines != 0) {
    throw InputError(at + "the " + std::to_string(h) +
                     " up links of a leaf do not split evenly "
                     "over " +
                     std::to_string(spines) + " spines (" + of + ")");
  }
  const uint64_t spine_ports = leaves * (h / spines);
  if (spine_ports > kWidePort) {
    throw InputError(at + of + ": a spine would have " + std::to_string(spine_ports) +
                     " ports, at most " + std::to_string(kWidePort));
  }
  return {terminals, h, static_cast<uint32_t>(spines), h / static_cast<uint32_t>(spines)};
}

}  // namespace hx::net
