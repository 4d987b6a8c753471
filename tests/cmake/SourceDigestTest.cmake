# Checks cmake/SourceDigest.cmake, the digest of the compiler sources in the kernel cache key: a
# changed, added or removed source changes the digest; unchanged sources give the same digest and
# leave the header untouched. Run by ctest: cmake -DSCRIPT=<SourceDigest.cmake> -DWORK=<dir> -P ...
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/src")
set(header "${WORK}/SourceDigest.h")

function(digest files out)
  list(JOIN files "\n" text)
  file(WRITE "${WORK}/list.txt" "${text}\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK}/src -DLIST=${WORK}/list.txt
                          -DOUT=${header} -P ${SCRIPT}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "SourceDigest.cmake failed: ${rc}")
  endif()
  file(READ "${header}" text)
  if(NOT text MATCHES "^#define TRITONC_SOURCE_DIGEST \"[0-9a-f]+\"\n$")
    message(FATAL_ERROR "unexpected header: ${text}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(expect_differ a b what)
  if(a STREQUAL b)
    message(FATAL_ERROR "the digest did not change when ${what}")
  endif()
endfunction()

file(WRITE "${WORK}/src/a.cpp" "int a() { return 1; }\n")
file(WRITE "${WORK}/src/b.h" "int a();\n")
digest("a.cpp;b.h" first)

# Same sources, listed in another order: same digest, header not rewritten.
file(TIMESTAMP "${header}" stamp "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
digest("b.h;a.cpp" again)
file(TIMESTAMP "${header}" stamp_again "%s")
if(NOT first STREQUAL again OR NOT stamp STREQUAL stamp_again)
  message(FATAL_ERROR "unchanged sources changed the header: '${first}' then '${again}'")
endif()

file(WRITE "${WORK}/src/a.cpp" "int a() { return 2; }\n")
digest("a.cpp;b.h" edited)
expect_differ("${first}" "${edited}" "a source was edited")

file(WRITE "${WORK}/src/c.cpp" "\n")
digest("a.cpp;b.h;c.cpp" added)
expect_differ("${edited}" "${added}" "a source was added")

file(REMOVE "${WORK}/src/c.cpp")
digest("a.cpp;b.h;c.cpp" removed)
expect_differ("${added}" "${removed}" "a listed source was removed")
message(STATUS "SourceDigest.cmake: digests change with the sources")
