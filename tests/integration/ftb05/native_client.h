/* C-callable native publisher (the C++ SDK, ftb::Client) for interoperability
   checks of the C tests. */
#ifndef FTB05_NATIVE_CLIENT_H
#define FTB05_NATIVE_CLIENT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Connects to $FTB_AGENT_ENDPOINT as a native client, declares and publishes
   one event, waits for the agent's ack and disconnects. 0 on success. */
int ftb05_test_native_publish(const char *event_space, const char *event_name,
                              const char *severity, const char *payload, size_t payload_len);

#ifdef __cplusplus
}
#endif

#endif /* FTB05_NATIVE_CLIENT_H */
