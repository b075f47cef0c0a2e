/*
 * C-callable control of a private ftb-agent for the C tests, around
 * tests/support/agent_process.h: an IPC socket in a fresh /tmp directory and a
 * loopback TCP port chosen by the kernel. The agent is killed by its PID in
 * ftb05_test_agent_stop (and at exit).
 */
#ifndef FTB05_TEST_AGENT_H
#define FTB05_TEST_AGENT_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the agent and sets FTB_AGENT_ENDPOINT to its IPC endpoint; 0 on
   success, -1 (reason on stderr) otherwise. */
int ftb05_test_agent_start(void);
const char *ftb05_test_agent_ipc_endpoint(void);
int ftb05_test_agent_tcp_port(void);
pid_t ftb05_test_agent_pid(void);
/* Stops the agent (SIGTERM, then SIGKILL) and removes its directory. */
void ftb05_test_agent_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* FTB05_TEST_AGENT_H */
