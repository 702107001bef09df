// tf_model_loader: loads a compiled model (.tfm) and runs it once, linking only the runtime, as a
// board does. Tests use it to prove a model needs no LLVM and no compiler at load time.
//
//   tf_model_loader MODEL.tfm OUTDIR NAME=IN.npy...
//
// Writes OUTDIR/<output name>.npy for each output and prints "libLLVM loaded: yes|no".
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "runtime/model/executor.h"
#include "support/npy.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: tf_model_loader MODEL.tfm OUTDIR NAME=IN.npy...\n";
    return 2;
  }
  try {
    tf::runtime::model::Executor model(tf::runtime::model::read_model_file(argv[1]));
    tf::runtime::model::HostTensors inputs;
    for (int i = 3; i < argc; ++i) {
      const std::string arg = argv[i];
      const auto eq = arg.find('=');
      if (eq == std::string::npos) throw std::runtime_error("'" + arg + "' is not NAME=FILE.npy");
      inputs[arg.substr(0, eq)] = tf::read_npy(arg.substr(eq + 1));
    }
    auto outputs = model.run(inputs);
    for (const auto& spec : model.outputs()) {
      tf::write_npy(std::string(argv[2]) + "/" + spec.name + ".npy", outputs.at(spec.name));
    }
  } catch (const std::exception& e) {
    std::cerr << "tf_model_loader: " << e.what() << "\n";
    return 1;
  }
  std::ifstream maps("/proc/self/maps");
  bool llvm_loaded = false;
  for (std::string m; std::getline(maps, m);) llvm_loaded |= m.find("libLLVM") != std::string::npos;
  std::cout << "libLLVM loaded: " << (llvm_loaded ? "yes" : "no") << "\n";
  return 0;
}
