# Installs tritonc from the build folder BUILD into a fresh prefix under WORK
# (component "dev"), then configures, builds and runs examples/cpp out of
# tree against it with find_package(tritonc): the test of the CMake package.
# cmake -DBUILD=... -DSOURCE=... -DWORK=... -DGENERATOR=... -P PackageExampleTest.cmake
file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix} --component dev)
foreach(file include/tritonc/driver/Jit.h lib/cmake/tritonc/tritoncConfig.cmake
             lib/cmake/tritonc/tritoncTargets.cmake share/tritonc/kernels/transpose.tc bin/tritonc)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()
run("configuring examples/cpp" ${CMAKE_COMMAND} -S ${SOURCE}/examples/cpp -B ${WORK}/example
    -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run("building examples/cpp" ${CMAKE_COMMAND} --build ${WORK}/example)
run("running the example" ${WORK}/example/transpose_example)
if(NOT last_output MATCHES "interpreter: ok\n.*ok\n$")
  message(FATAL_ERROR "unexpected output of the example:\n${last_output}")
endif()
message(STATUS "${last_output}")
