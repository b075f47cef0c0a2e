// The resource manager's side of a node: drain a failing node with a reason,
// resume it when it is healthy again. Outside a Slurm allocation there is no
// resource manager and NoNodeAdmin does nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client/status.h"

namespace ftb::launcher {

class NodeAdmin {
 public:
  virtual ~NodeAdmin() = default;
  virtual Status drain(const std::string& node, const std::string& reason) = 0;
  virtual Status resume(const std::string& node) = 0;
  virtual std::string name() const = 0;
};

class NoNodeAdmin : public NodeAdmin {
 public:
  Status drain(const std::string&, const std::string&) override { return {}; }
  Status resume(const std::string&) override { return {}; }
  std::string name() const override { return "none"; }
};

// Runs `scontrol update nodename=<node> state=drain|resume [reason=...]`.
// `scontrol` is looked up in PATH (SLURM_CONF in the environment picks the cluster).
class SlurmNodeAdmin : public NodeAdmin {
 public:
  explicit SlurmNodeAdmin(std::string scontrol = "scontrol") : scontrol_(std::move(scontrol)) {}
  Status drain(const std::string& node, const std::string& reason) override;
  Status resume(const std::string& node) override;
  std::string name() const override { return "slurm"; }

 private:
  std::string scontrol_;
};

// Runs a program (no shell) and returns its standard output; kInternal with
// the exit status and output when it fails.
Result<std::string> runProgram(const std::vector<std::string>& argv);

}  // namespace ftb::launcher
