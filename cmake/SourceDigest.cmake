# Script mode: writes a C header defining TRITONC_SOURCE_DIGEST, a SHA-256 over the compiler's
# sources, for the kernel cache key: any change to them gives new keys, so a rebuilt compiler never
# serves kernels that an earlier build generated (the git commit alone stays the same in a dirty tree
# and until CMake reconfigures).
#   cmake -DROOT=<source root> -DLIST=<file of paths relative to ROOT, one per line>
#         -DOUT=<header> -P SourceDigest.cmake
foreach(var ROOT LIST OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "SourceDigest.cmake: -D${var}=... is required")
  endif()
endforeach()
file(STRINGS "${LIST}" paths)
list(SORT paths)
set(manifest "")
foreach(path IN LISTS paths)
  # A file that is gone (deleted since CMake globbed) contributes its absence.
  if(EXISTS "${ROOT}/${path}")
    file(SHA256 "${ROOT}/${path}" digest)
  else()
    set(digest "missing")
  endif()
  string(APPEND manifest "${path} ${digest}\n")
endforeach()
string(SHA256 total "${manifest}")
string(SUBSTRING "${total}" 0 16 short)
set(text "#define TRITONC_SOURCE_DIGEST \"${short}\"\n")
# Rewritten only when it changes, so that an unchanged digest recompiles nothing.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
