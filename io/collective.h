// Small collectives for error handling: a step that may fail on some ranks only must end with
// every rank knowing, so that all leave the same collective path together (DESIGN §3.8).
#pragma once

#include <mpi.h>

#include <string>

namespace hx {

/// Collective: `root`'s text on every rank.
std::string broadcast(MPI_Comm comm, std::string text, int root);

/// Collective: the message of the lowest rank whose `local_error` is not empty, or "" if none.
std::string agree(MPI_Comm comm, const std::string& local_error);

}  // namespace hx
