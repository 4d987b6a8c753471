//===- AotC.cpp - Ahead-of-time C launchers for compiled kernels -----------===//
//
// The generated source is table-driven: each tensor map is a constant
// description (base parameter, data type, box, swizzle, and the extents and
// strides as polynomials over the integer parameters, flattened into
// {coef, n, index...} runs), and one generic function per file evaluates and
// encodes them at launch. The checks are those of runtime::planTensorMap; a
// launch whose arguments fail them returns CUDA_ERROR_INVALID_VALUE.
//
//===----------------------------------------------------------------------===//

#include "tritonc/driver/AotC.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace tritonc::driver {

namespace {

/// The C type a launcher parameter of this kind takes.
const char *cType(runtime::ArgKind K) {
  switch (K) {
  case runtime::ArgKind::Pointer:
    return "CUdeviceptr";
  case runtime::ArgKind::Int1:
    return "uint8_t";
  case runtime::ArgKind::Int8:
    return "int8_t";
  case runtime::ArgKind::Int16:
    return "int16_t";
  case runtime::ArgKind::Int32:
    return "int32_t";
  case runtime::ArgKind::Int64:
    return "int64_t";
  case runtime::ArgKind::F16:
  case runtime::ArgKind::BF16:
    return "uint16_t"; // the bits of the 16-bit float
  case runtime::ArgKind::F32:
    return "float";
  case runtime::ArgKind::F64:
    return "double";
  }
  return "int";
}

bool isInteger(runtime::ArgKind K) {
  return K == runtime::ArgKind::Int1 || K == runtime::ArgKind::Int8 ||
         K == runtime::ArgKind::Int16 || K == runtime::ArgKind::Int32 ||
         K == runtime::ArgKind::Int64;
}

/// The C name of parameter I: its own when it is a C identifier, else pI.
std::string paramName(const runtime::KernelSignature &Sig, size_t I) {
  const std::string &N = Sig.Params[I].Name;
  return isCIdentifier(N) && N != "stream" && N.rfind("grid_", 0) != 0 ? N
                                                                       : "p" + std::to_string(I);
}

/// "CUdeviceptr A, CUdeviceptr B, int32_t M".
std::string parameterList(const runtime::KernelSignature &Sig) {
  std::string S;
  for (size_t I = 0; I < Sig.Params.size(); ++I)
    S += ", " + std::string(cType(Sig.Params[I].Kind)) + " " + paramName(Sig, I);
  return S;
}

/// {coef, n, index...} per term, as C initializer text; Terms gets the
/// number of terms.
std::string polyTable(const ParamPoly &P, size_t &Terms) {
  std::string S;
  Terms = P.size();
  for (const ParamTerm &T : P) {
    S += std::to_string(T.Coef) + "LL, " + std::to_string(T.Params.size());
    for (unsigned I : T.Params)
      S += ", " + std::to_string(I);
    S += ", ";
  }
  return S.empty() ? "0" : S;
}

/// The cubin as rows of hex bytes.
std::string byteArray(const std::string &Bytes) {
  std::string S;
  char Buf[8];
  for (size_t I = 0; I < Bytes.size(); ++I) {
    std::snprintf(Buf, sizeof(Buf), "0x%02x,", static_cast<unsigned char>(Bytes[I]));
    S += (I % 16 == 0 ? "\n  " : " ") + std::string(Buf);
  }
  return S;
}

/// The shared part of every generated source: evaluating a flattened
/// polynomial and encoding one map, as runtime::planTensorMap does.
const char *EncoderTemplate = R"(
/* Sum over terms of coef * product(args[index]); 0 on overflow. */
static int @_poly(const int64_t *t, int terms, const int64_t *args, int64_t *out) {
  int64_t sum = 0;
  for (int i = 0; i < terms; ++i) {
    int64_t v = *t++, n = *t++;
    for (int64_t k = 0; k < n; ++k)
      if (__builtin_mul_overflow(v, args[*t++], &v))
        return 0;
    if (__builtin_add_overflow(sum, v, &sum))
      return 0;
  }
  *out = sum;
  return 1;
}

struct @_map_spec {
  unsigned base, data_type, elem_bytes, rank, swizzle;
  int bounded[5];
  const int64_t *dims[5];
  int dim_terms[5];
  const int64_t *strides[4];
  int stride_terms[4];
  cuuint32_t box[5];
  cuuint32_t element_strides[5];
};

/* zero_block: 16 zero bytes of the context, the memory of a map with nothing in bounds. */
static CUresult @_encode(CUtensorMap *map, const struct @_map_spec *s, const int64_t *args,
                         CUdeviceptr base, CUdeviceptr zero_block) {
  cuuint64_t dims[5], strides[4];
  int zero = 0;
  for (unsigned d = 0; d < s->rank; ++d) {
    int64_t v = 0x7FFFFE00LL; /* unbounded: TensorMapUnboundedDim */
    if (s->bounded[d] && !@_poly(s->dims[d], s->dim_terms[d], args, &v))
      return CUDA_ERROR_INVALID_VALUE;
    if (v > 0x7FFFFE00LL)
      return CUDA_ERROR_INVALID_VALUE;
    if (v <= 0)
      zero = 1;
    dims[d] = (cuuint64_t)v;
  }
  if (zero) {
    /* Every element is out of bounds: a map over zeros. */
    base = zero_block;
    for (unsigned d = 0; d < s->rank; ++d)
      dims[d] = 1;
    for (unsigned d = 0; d + 1 < s->rank; ++d)
      strides[d] = 16;
  } else {
    for (unsigned d = 1; d < s->rank; ++d) {
      int64_t v = 0, bytes = 0;
      if (!@_poly(s->strides[d - 1], s->stride_terms[d - 1], args, &v) ||
          __builtin_mul_overflow(v, (int64_t)s->elem_bytes, &bytes) || bytes < 0 ||
          bytes % 16 != 0 || bytes >= (1LL << 40))
        return CUDA_ERROR_INVALID_VALUE;
      strides[d - 1] = (cuuint64_t)bytes;
    }
    if (base % 16 != 0)
      return CUDA_ERROR_INVALID_VALUE;
  }
  return cuTensorMapEncodeTiled(map, (CUtensorMapDataType)s->data_type, s->rank,
                                (void *)(uintptr_t)base, dims, strides, s->box, s->element_strides,
                                CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)s->swizzle,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
)";

/// Loading the module once per context, safely from any thread: entries of
/// the table are complete before the count that publishes them grows, so
/// launches read it without a lock; loads and unloads take a spin lock (GCC
/// and Clang builtins: no library beyond libcuda). `$` marks where the
/// kernel-specific steps of a load go.
const char *LoaderTemplate = R"(
/* The module in each CUDA context that launched the kernel (at most 16). The entries below
   @_num_loaded are complete (published with release, read with acquire); loads and unloads
   hold @_lock, spinning while another thread loads (once per context). */
static struct @_loaded {
  CUcontext context;
  CUmodule module;
  CUfunction function;
  CUdeviceptr zero_block;
} @_modules[16];
static unsigned @_num_loaded;
static char @_lock;

static void @_acquire(void) {
  while (__atomic_test_and_set(&@_lock, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(&@_lock, __ATOMIC_RELAXED))
      ;
}

static void @_release(void) { __atomic_clear(&@_lock, __ATOMIC_RELEASE); }

static const struct @_loaded *@_find(CUcontext ctx) {
  unsigned n = __atomic_load_n(&@_num_loaded, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; ++i)
    if (@_modules[i].context == ctx)
      return &@_modules[i];
  return 0;
}

/* Loads the module into ctx (@_lock held) unless another thread just did. */
static CUresult @_load_locked(CUcontext ctx, const struct @_loaded **out) {
  if ((*out = @_find(ctx)) != 0)
    return CUDA_SUCCESS;
  unsigned n = @_num_loaded;
  if (n == sizeof @_modules / sizeof @_modules[0])
    return CUDA_ERROR_OUT_OF_MEMORY;
  struct @_loaded *e = &@_modules[n];
  CUresult r = cuModuleLoadData(&e->module, @_cubin);
  if (r != CUDA_SUCCESS)
    return r;
  e->zero_block = 0;
$  if (r != CUDA_SUCCESS) {
    if (e->zero_block)
      cuMemFree(e->zero_block);
    cuModuleUnload(e->module);
    return r;
  }
  e->context = ctx;
  __atomic_store_n(&@_num_loaded, n + 1, __ATOMIC_RELEASE);
  *out = e;
  return CUDA_SUCCESS;
}

/* The kernel in the calling thread's current context, loaded on first use. */
static CUresult @_get(const struct @_loaded **out) {
  CUcontext ctx = 0;
  CUresult r = cuCtxGetCurrent(&ctx);
  if (r != CUDA_SUCCESS)
    return r;
  if (!ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  if ((*out = @_find(ctx)) != 0)
    return CUDA_SUCCESS;
  @_acquire();
  r = @_load_locked(ctx, out);
  @_release();
  return r;
}

CUresult @_load(void) {
  const struct @_loaded *e;
  return @_get(&e);
}

CUresult @_unload(void) {
  CUresult r = CUDA_SUCCESS;
  @_acquire();
  for (unsigned i = 0; i < @_num_loaded; ++i) {
    CUresult u = cuModuleUnload(@_modules[i].module);
    if (@_modules[i].zero_block && u == CUDA_SUCCESS)
      u = cuMemFree(@_modules[i].zero_block);
    if (u != CUDA_SUCCESS)
      r = u;
  }
  __atomic_store_n(&@_num_loaded, 0, __ATOMIC_RELEASE);
  @_release();
  return r;
}
)";

/// Replaces every '@' of a template with the function name.
std::string instantiate(const char *Template, const std::string &Name) {
  std::string S;
  for (const char *C = Template; *C; ++C)
    if (*C == '@')
      S += Name;
    else
      S += *C;
  return S;
}

unsigned swizzleEnum(unsigned Bytes) {
  return Bytes == 32 ? 1 : Bytes == 64 ? 2 : Bytes == 128 ? 3 : 0;
}

/// The map descriptions: polynomial tables and one struct per map.
std::string mapTables(const std::string &N, const runtime::KernelSignature &Sig) {
  std::string S;
  for (size_t M = 0; M < Sig.TensorMaps.size(); ++M) {
    const TensorMapSpec &T = Sig.TensorMaps[M];
    std::string Id = N + "_map" + std::to_string(M);
    std::vector<size_t> DimTerms(T.rank(), 0), StrideTerms(T.Strides.size(), 0);
    for (unsigned D = 0; D < T.rank(); ++D)
      if (T.Dims[D])
        S += "static const int64_t " + Id + "_dim" + std::to_string(D) + "[] = {" +
             polyTable(*T.Dims[D], DimTerms[D]) + "};\n";
    for (size_t D = 0; D < T.Strides.size(); ++D)
      S += "static const int64_t " + Id + "_stride" + std::to_string(D + 1) + "[] = {" +
           polyTable(T.Strides[D], StrideTerms[D]) + "};\n";
    S += "static const struct " + N + "_map_spec " + Id + " = {\n";
    S += "  " + std::to_string(T.BaseParam) + ", " + std::to_string(T.DataType) + ", " +
         std::to_string(T.ElemBytes) + ", " + std::to_string(T.rank()) + ", " +
         std::to_string(swizzleEnum(T.SwizzleBytes)) + ",\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") + (T.Dims[D] ? "1" : "0");
    S += "},\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") +
           (T.Dims[D] ? Id + "_dim" + std::to_string(D) : std::string("0"));
    S += "},\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") + std::to_string(DimTerms[D]);
    S += "},\n  {";
    for (size_t D = 0; D < T.Strides.size(); ++D)
      S += std::string(D ? ", " : "") + Id + "_stride" + std::to_string(D + 1);
    S += std::string(T.Strides.empty() ? "0" : "") + "},\n  {";
    for (size_t D = 0; D < T.Strides.size(); ++D)
      S += std::string(D ? ", " : "") + std::to_string(StrideTerms[D]);
    S += std::string(T.Strides.empty() ? "0" : "") + "},\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") + std::to_string(T.Box[D]);
    S += "},\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") +
           std::to_string(T.ElementStrides.empty() ? 1 : T.ElementStrides[D]);
    S += "}};\n";
  }
  return S;
}

} // namespace

runtime::Status writeAotFiles(const std::string &OutPath, const std::string &SourceName,
                              const DeviceCompileResult &Kernel, const std::string &Cubin,
                              ptx::Arch Arch) {
  std::filesystem::path C(OutPath);
  if (C.extension() != ".c")
    return runtime::makeError("--emit=c writes a .c file and its .h: -o must name NAME.c, not '" +
                              OutPath + "'");
  AotInput In;
  In.FunctionName = C.stem().string();
  if (!isCIdentifier(In.FunctionName))
    return runtime::makeError("--emit=c: the launcher is named after the output file, and '" +
                              In.FunctionName + "' is not a C identifier");
  std::filesystem::path H = C;
  H.replace_extension(".h");
  In.HeaderName = H.filename().string();
  In.SourceName = SourceName;
  In.Kernel = &Kernel;
  In.Cubin = Cubin;
  In.Arch = Arch;
  for (const auto &[Path, Text] : {std::pair{H, emitAotHeader(In)}, {C, emitAotSource(In)}}) {
    std::ofstream F(Path, std::ios::binary | std::ios::trunc);
    F << Text;
    F.close();
    if (!F)
      return runtime::makeError("cannot write '" + Path.string() + "'");
  }
  return runtime::Status::ok();
}

bool isCIdentifier(const std::string &Name) {
  if (Name.empty() || std::isdigit(static_cast<unsigned char>(Name[0])))
    return false;
  for (char C : Name)
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_')
      return false;
  return true;
}

std::string emitAotHeader(const AotInput &In) {
  const std::string &N = In.FunctionName;
  const DeviceCompileResult &K = *In.Kernel;
  std::string Guard = N + "_H";
  for (char &C : Guard)
    C = char(std::toupper(static_cast<unsigned char>(C)));
  std::string S = "/* Generated by tritonc " TRITONC_VERSION " from " + In.SourceName +
                  ": kernel " + K.Info.Name + " for " + ptx::archName(In.Arch) + ", " +
                  std::to_string(K.Info.NumWarps) + " warps, " +
                  std::to_string(K.Info.SharedMemBytes) + " bytes of dynamic shared memory" +
                  (K.Specialization.empty() ? "" : ", specialization " + K.Specialization) +
                  ".\n   Signature: " + K.Signature.str() +
                  "\n   Needs only cuda.h and libcuda (-lcuda); compile with GCC or Clang. */\n";
  S += "#ifndef " + Guard + "\n#define " + Guard + "\n\n#include <cuda.h>\n#include <stdint.h>\n\n";
  S += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  S += "/* Loads the kernel into the calling thread's current context (up to 16 contexts); the\n"
       "   first launch in a context does it too. Thread-safe: concurrent first launches load the\n"
       "   module once. */\n";
  S += "CUresult " + N + "_load(void);\n";
  S += "/* Unloads it from every context (the next launch loads it again); not while another\n"
       "   thread launches it. */\n";
  S += "CUresult " + N + "_unload(void);\n";
  S += "/* Launches grid_x * grid_y * grid_z programs of " + std::to_string(K.Info.NumWarps * 32) +
       " threads on stream. 16-bit float scalars are\n"
       "   passed as their bits. CUDA_ERROR_INVALID_VALUE: the arguments break what the kernel\n"
       "   was compiled for (alignment, tensor map extents and strides). */\n";
  S += "CUresult " + N + "(CUstream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z" +
       parameterList(K.Signature) + ");\n\n";
  S += "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " + Guard + " */\n";
  return S;
}

std::string emitAotSource(const AotInput &In) {
  const std::string &N = In.FunctionName;
  const DeviceCompileResult &K = *In.Kernel;
  const runtime::KernelSignature &Sig = K.Signature;
  bool Maps = !Sig.TensorMaps.empty();
  std::string S = "/* Generated by tritonc " TRITONC_VERSION " from " + In.SourceName + " (see " +
                  In.HeaderName + "). */\n#include \"" + In.HeaderName + "\"\n\n";
  S += "static const unsigned char " + N + "_cubin[" + std::to_string(In.Cubin.size()) +
       "] __attribute__((aligned(16))) = {" + byteArray(In.Cubin) + "\n};\n\n";
  // The kernel-specific steps of a load, each setting r (LoaderTemplate).
  std::string Steps = "  r = cuModuleGetFunction(&e->function, e->module, \"" + Sig.Name + "\");\n";
  if (K.Info.SharedMemBytes > 0) // above the 48 KB a launch gets by default, the function opts in
    Steps += "  if (r == CUDA_SUCCESS)\n    r = cuFuncSetAttribute(e->function, "
             "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
             std::to_string(K.Info.SharedMemBytes) + ");\n";
  if (Maps) // 16 zero bytes: the memory of a tensor map with nothing in bounds
    Steps += "  if (r == CUDA_SUCCESS && (r = cuMemAlloc(&e->zero_block, 16)) == CUDA_SUCCESS)\n"
             "    r = cuMemsetD8(e->zero_block, 0, 16);\n";
  std::string Loader = instantiate(LoaderTemplate, N);
  S += Loader.replace(Loader.find('$'), 1, Steps) + "\n";
  if (Maps)
    S += instantiate(EncoderTemplate, N) + "\n" + mapTables(N, Sig);

  S += "CUresult " + N + "(CUstream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z" +
       parameterList(Sig) + ") {\n";
  S += "  const struct " + N + "_loaded *e;\n  CUresult r = " + N +
       "_get(&e);\n  if (r != CUDA_SUCCESS)\n    return r;\n";
  // What the specialization assumed: 'D' and 'S' a multiple of 16 (bytes for
  // a pointer), 'S' and 'U' an integer that is not negative.
  for (size_t I = 0; I < K.Specialization.size() && I < Sig.Params.size(); ++I) {
    char C = K.Specialization[I];
    if (C == 'D' || C == 'S')
      S += "  if ((" + paramName(Sig, I) + ") % 16 != 0)\n    return CUDA_ERROR_INVALID_VALUE;\n";
    if (C == 'S' || C == 'U')
      S += "  if ((" + paramName(Sig, I) + ") < 0)\n    return CUDA_ERROR_INVALID_VALUE;\n";
  }
  if (Maps) {
    S += "  const int64_t args[" + std::to_string(Sig.Params.size()) + "] = {";
    for (size_t I = 0; I < Sig.Params.size(); ++I)
      S += std::string(I ? ", " : "") +
           (isInteger(Sig.Params[I].Kind) ? "(int64_t)" + paramName(Sig, I) : std::string("0"));
    S += "};\n  CUtensorMap maps[" + std::to_string(Sig.TensorMaps.size()) + "];\n";
    for (size_t M = 0; M < Sig.TensorMaps.size(); ++M)
      S += "  if ((r = " + N + "_encode(&maps[" + std::to_string(M) + "], &" + N + "_map" +
           std::to_string(M) + ", args, " + paramName(Sig, Sig.TensorMaps[M].BaseParam) +
           ", e->zero_block)) != CUDA_SUCCESS)\n    return r;\n";
  }
  // The user's parameters, then the tensor maps (hidden parameters).
  std::vector<std::string> Params;
  for (size_t I = 0; I < Sig.Params.size(); ++I)
    Params.push_back("&" + paramName(Sig, I));
  for (size_t M = 0; M < Sig.TensorMaps.size(); ++M)
    Params.push_back("&maps[" + std::to_string(M) + "]");
  S += "  void *params[] = {";
  for (size_t I = 0; I < Params.size(); ++I)
    S += (I ? ", " : "") + Params[I];
  S += std::string(Params.empty() ? "0" : "") + "};\n";
  S += "  return cuLaunchKernel(e->function, grid_x, grid_y, grid_z, " +
       std::to_string(K.Info.NumWarps * 32) + ", 1, 1, " + std::to_string(K.Info.SharedMemBytes) +
       ", stream, params, 0);\n}\n";
  return S;
}

} // namespace tritonc::driver
