// ftbctl keygen: a CurveZMQ key pair for an agent or a remote client
// (docs/SECURITY.md). Needs no agent.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/output.h"
#include "client/curve_keys.h"

namespace ftb::cli {

Command addKeygenCommand(CLI::App& app, const GlobalOptions& globals) {
  CLI::App* sub = app.add_subcommand(
      "keygen",
      "Generate a CurveZMQ key pair: BASE.key (secret, mode 600) and BASE.pub; prints the public key");
  auto base = std::make_shared<std::string>("/etc/ftb/agent");
  auto force = std::make_shared<bool>(false);
  sub->add_option("--out", *base, "Path without extension of the two files to write")->capture_default_str();
  sub->add_flag("--force", *force, "Replace existing key files");
  return {sub, [&globals, base, force]() -> int {
            if (!*force && std::filesystem::exists(*base + ".key")) {
              return fail("keygen", kExitUsage,
                          *base + ".key exists; use --force to replace it (agents using it must "
                                  "then get the new public key)");
            }
            // Nothing here talks to an agent: every failure is a local one.
            auto pair = curve::generateKeyPair();
            if (!pair.ok()) return fail("keygen", kExitLocal, pair.status().message());
            if (Status s = curve::writeKeyFiles(*pair, *base); !s.ok()) {
              return fail("keygen", kExitLocal,
                          s.message() + ": check that the directory exists and is writable by "
                                        "this user (keygen --out BASE)");
            }
            if (globals.json) {
              JsonWriter j;
              j.beginObject();
              j.key("public_key").value(pair->public_key);
              j.key("secret_key_file").value(*base + ".key");
              j.key("public_key_file").value(*base + ".pub");
              j.endObject();
              std::cout << j.str() << std::endl;
            } else {
              std::cout << pair->public_key << std::endl;
            }
            return kExitOk;
          }};
}

}  // namespace ftb::cli
