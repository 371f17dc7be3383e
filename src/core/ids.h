// Identifier types shared by the engine, the partitioners and the models.
#pragma once

#include <cstdint>

namespace hx {

/// Global component id: dense in [0, Model::num_components()), the same on every rank.
using ComponentId = uint32_t;
/// Index of a port on its component.
using PortId = uint16_t;

inline constexpr PortId kSelfPort = 0xFFFF;  // events a component schedules for itself

}  // namespace hx
