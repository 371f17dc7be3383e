// The ranks of a communicator as a Team (core/team.h), for the models' shared start-up analysis.
#pragma once

#include <mpi.h>

#include "core/team.h"

namespace hx {

class MpiTeam final : public Team {
 public:
  explicit MpiTeam(MPI_Comm comm);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::byte> all_gather(std::span<const std::byte> mine) const override;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace hx
