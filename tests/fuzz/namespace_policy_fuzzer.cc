// Fuzzes the namespace policy file (agent/security/namespace_policy.h): text an
// operator writes, read at start and on every reload. Input: the policy, then
// after a NUL a namespace to ask about. Property: openToAll(action) means that
// every client may, in every namespace.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agent/security/namespace_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string text(input.substr(0, nul));
  const std::string space(nul == std::string_view::npos ? "FTB.JL.JOB1" : input.substr(nul + 1));

  ftb::Result<ftb::agent::NamespacePolicy> policy = ftb::agent::NamespacePolicy::parse(text, "fuzz");
  if (!policy.ok()) return 0;

  ftb::agent::Principal root{.peer = ftb::agent::PeerCredentials{0, 0, 1}};
  ftb::agent::Principal user{.peer = ftb::agent::PeerCredentials{1000, 1000, 2}, .groups = {27}};
  ftb::agent::Principal remote{.curve_authenticated = true};
  using Action = ftb::agent::NamespacePolicy::Action;
  for (Action action : {Action::kPublish, Action::kSubscribe}) {
    const bool open = policy->openToAll(action);
    for (const auto* who : {&root, &user, &remote}) {
      if (!policy->allows(action, space, *who) && open) std::abort();
    }
    (void)policy->whoMay(action, space);
  }
  return 0;
}
