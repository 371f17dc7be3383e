// Test helpers for input errors: the message a callable throws, and a substring expectation.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace hx::testing {

/// The message of the InputError `f` throws, or "" if it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace hx::testing

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text)
