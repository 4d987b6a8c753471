"""Triton-C sources that several test files compile from text."""

# y = a * x + y over N elements, 128 per program, masked at the end.
AXPY = """
__global__ void axpy(float *X, float *Y, float a, int N) {
  int off[128] = get_program_id(0) * 128 + 0 ... 128;
  bool m[128] = off < N;
  float *px[128] = X + off;
  float *py[128] = Y + off;
  *?(m) py = a * *?(m) px + *?(m) py;
}
"""
