// The BMC credentials file: one line per target, readable only by root.
//
//   # target   username  password (the rest of the line)
//   node17     admin     s3cret
//   *          monitor   watch-it          <- any BMC without its own line
//
// A target is a BMC name or address from the configuration, or '*'. The file
// is refused unless it is a regular file owned by root with no group or other
// permission bits (chmod 600), so passwords cannot leak to other users.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>

#include "client/status.h"

namespace ftb::ipmi {

struct Credentials {
  std::string username;
  std::string password;
};

class CredentialsFile {
 public:
  // kPermissionDenied when the file is not owned by `required_owner` (root) or
  // is accessible to group/other; kInvalidArgument naming the line when malformed.
  static Result<CredentialsFile> load(const std::string& path, uid_t required_owner = 0);
  // Same rules on text already read (no permission check): for tests and tools.
  static Result<CredentialsFile> parse(const std::string& text, const std::string& origin);

  // Credentials for a BMC: its name, else its address, else '*'.
  std::optional<Credentials> lookup(const std::string& name, const std::string& address) const;

 private:
  std::map<std::string, Credentials> entries_;
};

}  // namespace ftb::ipmi
