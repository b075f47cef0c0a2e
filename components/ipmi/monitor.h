// Monitor: one BmcWatcher per configured BMC (or one in-band watcher for this
// node's own BMC), each on its own thread so that a slow or dead BMC never
// delays the others.
//
//   auto m = Monitor::create(config, sink);   // checks credentials, builds watchers
//   (*m)->start();  ...  (*m)->stop();        // stop() joins the threads
#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "client/status.h"
#include "components/ipmi/bmc_watcher.h"
#include "components/ipmi/config.h"
#include "components/ipmi/event_sink.h"

namespace ftb::ipmi {

// True when this node has an in-band IPMI device to talk to.
bool hasInbandDevice(const MonitorConfig& config);

class Monitor {
 public:
  // kPermissionDenied / kInvalidArgument / kFailedPrecondition for bad
  // credentials files, unknown BMCs in it or an unusable SDR cache directory.
  // `metrics` (optional) receives every watcher's sweep times, errors and BMC state.
  static Result<std::unique_ptr<Monitor>> create(const MonitorConfig& config, EventSink& sink,
                                                 prometheus::Registry* metrics = nullptr);
  ~Monitor();

  void start();
  void stop();
  std::size_t watcherCount() const { return watchers_.size(); }

 private:
  Monitor() = default;
  std::vector<std::unique_ptr<BmcWatcher>> watchers_;
  std::vector<std::thread> threads_;
};

}  // namespace ftb::ipmi
