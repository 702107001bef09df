// Target strings: parsing, host detection, and validation against the LLVM backends.
#include "compiler/codegen/target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "compiler/codegen/llvm_init.h"
#include "compiler/error.h"
#include "runtime/host_cpu.h"

namespace tf::codegen {
namespace {

// The features LLVM's backends know, per architecture (generated at build time from `llc -mattr=help`):
// LLVM 16 offers no silent way to ask, and warns on the process's stderr about a name it does not know,
// so nothing unknown is ever handed to it.
bool feature_known(const llvm::Triple& triple, const std::string& name) {
  static const std::set<std::pair<std::string, std::string>> known = {
#include "compiler/codegen/known_features.inc"
  };
  return known.count({llvm::Triple::getArchTypeName(triple.getArch()).str(), name}) > 0;
}

// Whether the backend knows `cpu`; a subtarget for no CPU in particular answers without printing.
bool cpu_known(const llvm::Target& backend, const std::string& triple, const std::string& cpu) {
  std::unique_ptr<llvm::MCSubtargetInfo> any(backend.createMCSubtargetInfo(triple, "", ""));
  return any && any->isCPUStringValid(cpu);
}

// Subtarget info for a CPU and features already checked with cpu_known and feature_known.
std::unique_ptr<llvm::MCSubtargetInfo> subtarget(const llvm::Target& backend, const std::string& triple,
                                                 const std::string& cpu, const std::string& features) {
  return std::unique_ptr<llvm::MCSubtargetInfo>(backend.createMCSubtargetInfo(triple, cpu, features));
}

// The host's features that differ from what `cpu` implies (a hypervisor may hide some), as LLVM
// sees them: the feature part of llvm_named_host_target().
std::string host_feature_delta(const llvm::Target& backend, const std::string& triple, const std::string& cpu) {
  llvm::StringMap<bool> map;
  if (!llvm::sys::getHostCPUFeatures(map)) return "";
  std::unique_ptr<llvm::MCSubtargetInfo> implied(backend.createMCSubtargetInfo(triple, cpu, ""));
  std::vector<std::string> delta;
  for (const auto& kv : map) {
    const std::string name = kv.first().str();
    if (!feature_known(llvm::Triple(triple), name)) continue;
    if (implied->checkFeatures("+" + name) != kv.second) delta.push_back((kv.second ? "+" : "-") + name);
  }
  std::sort(delta.begin(), delta.end());
  std::string s;
  for (const auto& f : delta) s += (s.empty() ? "" : ",") + f;
  return s;
}

// Widest float vector the target's enabled features give, for the operator templates.
int detect_vector_bits(const llvm::Triple& triple, const llvm::MCSubtargetInfo& sti) {
  if (triple.isX86()) {
    if (sti.checkFeatures("+avx512f")) return 512;
    if (sti.checkFeatures("+avx")) return 256;
    return 128;
  }
  if (triple.isAArch64() || triple.isARM()) return 128;
  return 128;
}

int detect_vector_registers(const llvm::Triple& triple, const llvm::MCSubtargetInfo& sti) {
  if (triple.isX86()) return sti.checkFeatures("+avx512f") ? 32 : 16;
  if (triple.isAArch64()) return 32;
  return 16;
}

// Features Linux's cpuinfo (or, on AArch64, its HWCAP names) spells differently from LLVM.
const std::map<std::string, std::string>& cpuinfo_aliases(const llvm::Triple& triple) {
  static const std::map<std::string, std::string> x86 = {
      {"abm", "lzcnt"}, {"pclmulqdq", "pclmul"}, {"rdrand", "rdrnd"}, {"sha_ni", "sha"}, {"3dnowprefetch", "prfchw"}};
  static const std::map<std::string, std::string> aarch64 = {
      {"fp", "fp-armv8"},      {"asimd", "neon"},       {"crc32", "crc"},    {"atomics", "lse"},
      {"fphp", "fullfp16"},    {"asimdhp", "fullfp16"}, {"asimdrdm", "rdm"}, {"jscvt", "jsconv"},
      {"fcma", "complxnum"},   {"lrcpc", "rcpc"},       {"dcpop", "ccpp"},   {"asimddp", "dotprod"},
      {"asimdfhm", "fp16fml"}, {"sha1", "sha2"},        {"pmull", "aes"}};
  static const std::map<std::string, std::string> none;
  if (triple.isX86()) return x86;
  if (triple.isAArch64()) return aarch64;
  return none;
}

// Flags that never become part of a target. The templates emit fixed-width NEON vectors on AArch64,
// so SVE's scalable registers would change no kernel, only split one kind of board into two keys.
bool ignored_cpu_flag(const llvm::Triple& triple, const std::string& flag) {
  return triple.isAArch64() && flag.rfind("sve", 0) == 0;
}

}  // namespace

std::string Target::str() const {
  std::string s = "llvm -mtriple=" + triple + " -mcpu=" + cpu;
  if (!features.empty()) s += " -mattr=" + features;
  return s;
}

Target parse_target(const std::string& text) {
  initialize_llvm();
  if (text == "native") return host_target();
  std::istringstream in(text);
  std::string word;
  if (!(in >> word) || word != "llvm") {
    throw CompileError("unknown target '" + text +
                       "': a target is 'native' (this host) or a string starting with 'llvm', e.g. "
                       "'llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64-v3'");
  }
  std::string triple_str, cpu, features;
  bool have_attr = false;
  while (in >> word) {
    auto eq = word.find('=');
    std::string key = word.substr(0, eq), value = eq == std::string::npos ? "" : word.substr(eq + 1);
    if (key == "-mtriple" && !value.empty()) {
      triple_str = value;
    } else if (key == "-mcpu" && !value.empty()) {
      cpu = value;
    } else if (key == "-mattr") {
      features = value;
      have_attr = true;
    } else {
      throw CompileError("target '" + text + "': unknown option '" + word + "' (known: -mtriple=, -mcpu=, -mattr=)");
    }
  }
  const std::string host_triple = runtime::host_cpu().triple;
  const bool is_host =
      triple_str.empty() || llvm::Triple(triple_str).normalize() == llvm::Triple(host_triple).normalize();
  if (triple_str.empty()) triple_str = host_triple;
  llvm::Triple triple(llvm::Triple::normalize(triple_str));
  if (cpu.empty()) cpu = is_host ? "native" : "generic";
  if (cpu == "native") {
    if (!is_host)
      throw CompileError("target '" + text + "': -mcpu=native only makes sense for the host triple " + host_triple);
    if (!have_attr) return host_target();
    // The host with features switched on or off: its own list first, so the ones given win.
    const Target host = host_target();
    cpu = host.cpu;
    features = host.features.empty() ? features : features.empty() ? host.features : host.features + "," + features;
  }

  std::string error;
  const llvm::Target* backend = llvm::TargetRegistry::lookupTarget(triple.str(), error);
  if (!backend)
    throw CompileError("target '" + text + "': no LLVM backend for triple '" + triple.str() + "': " + error);
  if (!cpu_known(*backend, triple.str(), cpu)) {
    throw CompileError("target '" + text + "': CPU '" + cpu + "' is unknown to the " + backend->getName() + " backend");
  }
  // Reject misspelt features instead of letting LLVM print a warning and ignore them.
  std::istringstream fs(features);
  std::string f;
  while (std::getline(fs, f, ',')) {
    if (f.empty()) continue;
    if (f[0] != '+' && f[0] != '-')
      throw CompileError("target '" + text + "': feature '" + f + "' must start with + or -");
    std::string name = f.substr(1);
    if (!feature_known(triple, name))
      throw CompileError("target '" + text + "': feature '" + name + "' is unknown to the " + backend->getName() +
                         " backend");
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti = subtarget(*backend, triple.str(), cpu, features);

  Target t;
  t.triple = triple.str();
  t.cpu = cpu;
  t.features = features;
  t.vector_bits = detect_vector_bits(triple, *sti);
  t.vector_registers = detect_vector_registers(triple, *sti);
  return t;
}

Target target_from_cpu_flags(const std::string& triple_text, const std::vector<std::string>& flags) {
  initialize_llvm();
  llvm::Triple triple(llvm::Triple::normalize(triple_text));
  std::string error;
  const llvm::Target* backend = llvm::TargetRegistry::lookupTarget(triple.str(), error);
  if (!backend) throw CompileError("no LLVM backend for triple '" + triple_text + "': " + error);
  // Memoized: every board of a fleet registers with the same few flag sets.
  static std::mutex memo_mu;
  static std::map<std::string, Target> memo;
  std::string memo_key = triple_text;
  for (const auto& f : flags) memo_key += " " + f;
  {
    std::lock_guard<std::mutex> lock(memo_mu);
    if (auto it = memo.find(memo_key); it != memo.end()) return it->second;
  }
  std::set<std::string> have;
  for (const std::string& f : flags) {
    if (!ignored_cpu_flag(triple, f)) have.insert(f);
  }
  for (const auto& [cpuinfo_name, llvm_name] : cpuinfo_aliases(triple)) {
    if (have.count(cpuinfo_name)) have.insert(llvm_name);
  }
  auto covers = [&](std::initializer_list<const char*> needed) {
    return std::all_of(needed.begin(), needed.end(), [&](const char* f) { return have.count(f) > 0; });
  };
  std::string cpu = "generic";
  if (triple.isX86()) {
    // The x86-64 micro-architecture levels, in /proc/cpuinfo's names.
    const bool v2 = covers({"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"});
    // (lzcnt, "abm", is in x86-64-v3 too, but some hypervisors leave it out of cpuinfo while the
    // CPU has it; every AVX2 CPU has it.)
    const bool v3 = v2 && covers({"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"});
    const bool v4 = v3 && covers({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"});
    cpu = v4 ? "x86-64-v4" : v3 ? "x86-64-v3" : v2 ? "x86-64-v2" : "x86-64";
  }
  std::unique_ptr<llvm::MCSubtargetInfo> implied = subtarget(*backend, triple.str(), cpu, "");
  std::vector<std::string> extra;
  for (const std::string& flag : have) {
    // cpuinfo and LLVM spell some features differently: sse4_1 / sse4.1, avx512_vnni / avx512vnni.
    std::string dotted = flag, joined;
    std::replace(dotted.begin(), dotted.end(), '_', '.');
    for (char c : flag)
      if (c != '_') joined += c;
    for (const std::string& f : {flag, dotted, joined}) {
      if (f.empty() || !feature_known(triple, f)) continue;
      if (!implied->checkFeatures("+" + f)) extra.push_back("+" + f);
      break;
    }
  }
  extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
  std::sort(extra.begin(), extra.end());
  Target t;
  t.triple = triple.str();
  t.cpu = cpu;
  for (const auto& f : extra) t.features += (t.features.empty() ? "" : ",") + f;
  std::unique_ptr<llvm::MCSubtargetInfo> sti = subtarget(*backend, t.triple, t.cpu, t.features);
  t.vector_bits = detect_vector_bits(triple, *sti);
  t.vector_registers = detect_vector_registers(triple, *sti);
  std::lock_guard<std::mutex> lock(memo_mu);
  memo[memo_key] = t;
  return t;
}

bool host_can_run(const Target& target, std::string* why) {
  const Target& host = host_target();
  llvm::Triple want(target.triple), have(host.triple);
  if (want.getArch() != have.getArch() || want.getOS() != have.getOS()) {
    if (why) *why = "code for " + target.triple + " cannot run on this " + host.triple + " host";
    return false;
  }
  // Asked of the CPU itself (LLVM's view, through cpuid on x86): the instruction set, not the
  // tuning a CPU name brings, decides whether code runs.
  llvm::StringMap<bool> present;
  if (!llvm::sys::getHostCPUFeatures(present)) return true;
  std::string error;
  const llvm::Target* backend = llvm::TargetRegistry::lookupTarget(host.triple, error);
  if (!backend) return false;
  std::unique_ptr<llvm::MCSubtargetInfo> wanted = subtarget(*backend, target.triple, target.cpu, target.features);
  std::vector<std::string> missing;
  for (const auto& kv : present) {
    const std::string name = kv.first().str();
    // Only names the backend knows reach checkFeatures, which warns on stderr about any other.
    if (!kv.second && feature_known(have, name) && wanted->checkFeatures("+" + name)) missing.push_back(name);
  }
  if (missing.empty()) return true;
  std::sort(missing.begin(), missing.end());
  if (why) {
    std::string list;
    for (const auto& f : missing) list += (list.empty() ? "" : ", ") + f;
    *why = "target '" + target.str() + "' needs CPU features this host (" + host.cpu + ") lacks: " + list;
  }
  return false;
}

bool same_kind(const Target& a, const Target& b) {
  const llvm::Triple ta(a.triple), tb(b.triple);
  return ta.getArch() == tb.getArch() && ta.getOS() == tb.getOS() && a.cpu == b.cpu;
}

Target host_target() {
  static const Target host = [] {
    const runtime::HostCpu& cpu = runtime::host_cpu();
    return target_from_cpu_flags(cpu.triple, cpu.flags);
  }();
  return host;
}

std::string llvm_named_host_target() {
  // Asked of every database a command or the tracker opens: computed once.
  static const std::string named = [] {
    initialize_llvm();
    const std::string triple = llvm::Triple::normalize(llvm::sys::getProcessTriple());
    std::string error;
    const llvm::Target* backend = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!backend) return std::string();
    std::string cpu = llvm::sys::getHostCPUName().str();
    if (cpu == "generic" && llvm::Triple(triple).isX86()) {
      for (const char* level : {"x86-64-v4", "x86-64-v3", "x86-64-v2"}) {
        const std::string delta = host_feature_delta(*backend, triple, level);
        if ((delta.empty() || delta[0] != '-') && delta.find(",-") == std::string::npos) {
          cpu = level;
          break;
        }
      }
    }
    Target t;
    t.triple = triple;
    t.cpu = cpu;
    t.features = host_feature_delta(*backend, triple, cpu);
    return t.str();
  }();
  return named;
}

}  // namespace tf::codegen
