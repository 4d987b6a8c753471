//===- Ptxas.cpp - Assembling PTX into a cubin with ptxas ------------------===//

#include "tritonc/driver/Ptxas.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

extern char **environ;

namespace tritonc::driver {

using runtime::Expected;
using runtime::makeError;

namespace {

bool isExecutableFile(const std::string &Path) {
  std::error_code Ec;
  return std::filesystem::is_regular_file(Path, Ec) && ::access(Path.c_str(), X_OK) == 0;
}

bool readFile(const std::string &Path, std::string &Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::ostringstream SS;
  SS << In.rdbuf();
  Out = SS.str();
  return static_cast<bool>(In) || In.eof();
}

/// A directory removed with everything in it when this object dies.
class ScratchDir {
public:
  ScratchDir() {
    const char *Tmp = std::getenv("TMPDIR");
    std::string Pattern = std::string(Tmp && *Tmp ? Tmp : "/tmp") + "/tritonc-ptxas-XXXXXX";
    if (::mkdtemp(Pattern.data()))
      Path = Pattern;
  }
  ~ScratchDir() {
    std::error_code Ec;
    if (!Path.empty())
      std::filesystem::remove_all(Path, Ec);
  }
  std::string Path;
};

} // namespace

Expected<std::string> findPtxas() {
  if (const char *Env = std::getenv("TRITONC_PTXAS"); Env && *Env) {
    if (isExecutableFile(Env))
      return std::string(Env);
    return makeError("TRITONC_PTXAS is '" + std::string(Env) +
                     "', which is not an executable file");
  }
  if (const char *PathVar = std::getenv("PATH")) {
    std::string_view Rest = PathVar;
    while (true) {
      size_t Colon = Rest.find(':');
      std::string Dir(Rest.substr(0, Colon));
      if (!Dir.empty() && isExecutableFile(Dir + "/ptxas"))
        return Dir + "/ptxas";
      if (Colon == std::string_view::npos)
        break;
      Rest.remove_prefix(Colon + 1);
    }
  }
  if (isExecutableFile("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return makeError("ptxas not found (looked at $TRITONC_PTXAS, PATH and /usr/local/cuda/bin); "
                   "install the CUDA toolkit or set TRITONC_PTXAS");
}

Expected<std::string> assembleWithPtxas(std::string_view PTX, ptx::Arch Arch,
                                        const std::string &PtxasPath) {
  ScratchDir Dir;
  if (Dir.Path.empty())
    return makeError(std::string("cannot create a temporary directory for ptxas: ") +
                     std::strerror(errno));
  std::string Input = Dir.Path + "/kernel.ptx";
  std::string Output = Dir.Path + "/kernel.cubin";
  std::string Log = Dir.Path + "/ptxas.log";
  {
    std::ofstream F(Input, std::ios::binary);
    F << PTX;
    if (!F)
      return makeError("cannot write '" + Input + "'");
  }
  std::vector<std::string> Argv = {PtxasPath, std::string("-arch=") + ptx::archName(Arch), Input,
                                   "-o", Output};
  std::vector<char *> CArgv;
  for (std::string &A : Argv)
    CArgv.push_back(A.data());
  CArgv.push_back(nullptr);

  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_addopen(&Actions, STDOUT_FILENO, Log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&Actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t Pid = 0;
  int SpawnError = posix_spawn(&Pid, PtxasPath.c_str(), &Actions, nullptr, CArgv.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  if (SpawnError != 0)
    return makeError("cannot run '" + PtxasPath + "': " + std::strerror(SpawnError));
  int WaitStatus = 0;
  while (::waitpid(Pid, &WaitStatus, 0) < 0) {
    if (errno != EINTR)
      return makeError("waiting for ptxas failed: " + std::string(std::strerror(errno)));
  }
  std::string Messages;
  (void)readFile(Log, Messages);
  while (!Messages.empty() && (Messages.back() == '\n' || Messages.back() == ' '))
    Messages.pop_back();
  if (!WIFEXITED(WaitStatus) || WEXITSTATUS(WaitStatus) != 0) {
    std::string How = WIFEXITED(WaitStatus)
                          ? "exit status " + std::to_string(WEXITSTATUS(WaitStatus))
                          : "signal " + std::to_string(WTERMSIG(WaitStatus));
    return makeError("ptxas failed (" + How + ") for " + ptx::archName(Arch) +
                     (Messages.empty() ? "" : ":\n" + Messages));
  }
  std::string Cubin;
  if (!readFile(Output, Cubin) || Cubin.empty())
    return makeError("ptxas produced no cubin");
  return Cubin;
}

} // namespace tritonc::driver
