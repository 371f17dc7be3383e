# The one place that knows Open MPI's quirks for this project's machines: root needs
# --allow-run-as-root and a 2-core machine needs --oversubscribe to start 3 or 4 ranks.
# Tests launch through ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} N ${MPIEXEC_PREFLAGS} ...;
# scripts/mpirun.sh applies the same flags outside CMake.
set(HX_MPIEXEC_EXTRA_FLAGS "--oversubscribe;--bind-to;none" CACHE STRING
    "Flags that every mpiexec launch gets (tests, scripts)")
if(MPIEXEC_EXECUTABLE MATCHES "mpirun|mpiexec|orterun")
  execute_process(COMMAND id -u OUTPUT_VARIABLE _hx_uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_hx_uid STREQUAL "0")
    list(APPEND HX_MPIEXEC_EXTRA_FLAGS "--allow-run-as-root")
  endif()
endif()
set(MPIEXEC_PREFLAGS ${HX_MPIEXEC_EXTRA_FLAGS} CACHE STRING "mpiexec flags before the program" FORCE)

# hx_add_mpi_test(NAME name RANKS 1 2 3 4 COMMAND exe args...)
# Registers one ctest per rank count, named <name>.np<N>, labelled "mpi".
function(hx_add_mpi_test)
  cmake_parse_arguments(T "" "NAME" "RANKS;COMMAND;LABELS" ${ARGN})
  foreach(n IN LISTS T_RANKS)
    add_test(NAME ${T_NAME}.np${n}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${MPIEXEC_PREFLAGS}
                     ${T_COMMAND})
    set_tests_properties(${T_NAME}.np${n} PROPERTIES LABELS "mpi;${T_LABELS}" PROCESSORS ${n}
                         ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endfunction()
