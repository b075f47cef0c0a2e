// ftbctl's CurveZMQ options: the same key files as the agent and the SDK
// (client/curve_keys.h, docs/SECURITY.md), turned into the keys every tcp://
// connection of ftbctl uses (control API, SDK sessions, the tree crawl).
//
//   --curve-key-file FILE     this client's secret key (ftbctl keygen; mode 600,
//                             owned by root or the user running ftbctl); its
//                             public key is derived from it
//   --curve-server-key KEY    the agents' public key: 40 Z85 characters, or a
//                             file holding it (e.g. /etc/ftb/cluster.pub);
//                             default: the key file's own public key, as for an
//                             agent on a cluster sharing one key pair
#pragma once

#include <string>

#include "client/control_client.h"
#include "client/status.h"

namespace ftb::cli {

// Both empty: no Curve (an empty CurveClientKeys). Errors name the option:
// kInvalidArgument when the options contradict each other (a server key
// without a key file, the secret key given as the server key): a usage error;
// kFailedPrecondition when a file cannot be used (missing, readable by others,
// no key in it): a local error.
Result<CurveClientKeys> resolveCurveKeys(const std::string& key_file,
                                         const std::string& server_key);

}  // namespace ftb::cli
