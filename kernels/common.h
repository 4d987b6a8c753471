// common.h - macros shared by the bundled Triton-C kernels.
//
// Every kernel includes this header (`#include "common.h"`), so each of them
// compiles without any -D: the element type defaults to float and the
// accumulator of `@` products to float. Pass -DTYPE=half|bfloat16|double and
// -DACC=double (with TYPE=double) to change them.
#ifndef TRITONC_KERNELS_COMMON_H
#define TRITONC_KERNELS_COMMON_H

// Element type of the tensors a kernel reads and writes.
#ifndef TYPE
#define TYPE float
#endif

// Accumulator type of reductions and `@`: float for half/bfloat16/float
// inputs, double for double inputs.
#ifndef ACC
#define ACC float
#endif

// Number of tiles of size B needed to cover N elements (the grid size along
// one axis): CDIV(37, 16) == 3.
#define CDIV(N, B) (((N) + (B) - 1) / (B))

#endif
