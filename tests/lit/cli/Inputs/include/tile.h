#ifndef TN
#define TN 8
#endif
