# Compiler flags shared by every hxsim target (applied through the hx_flags interface target).
add_library(hx_flags INTERFACE)
target_compile_options(hx_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(HX_WERROR)
  target_compile_options(hx_flags INTERFACE -Werror)
endif()
if(HX_SANITIZE)
  target_compile_options(hx_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(hx_flags INTERFACE -fsanitize=address,undefined)
endif()
# GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string (GCC bug 105329).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(hx_flags INTERFACE -Wno-restrict)
endif()
