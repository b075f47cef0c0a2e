/*
 * ftb's extension to the FTB 0.5 C API (not in CIFTS FTB 0.6.2): a last will.
 * Off unless a program calls it; programs that only use libftb.h are unchanged.
 * docs/FTB05.md ("Extensions") and docs/RECOVERY_EVENTS.md ("Last will").
 *
 *   FTB_client_handle_t h;
 *   if (FTBX_Connect_with_last_will(&info, "RANK_DIED", "fatal", "rank 3", &h) != FTB_SUCCESS) ...
 *
 * Connects exactly as FTB_Connect does and gives the agent an event that it
 * publishes on this client's behalf if the connection ends without
 * FTB_Disconnect (the process is killed or exits without disconnecting):
 * event `will_event_name` in the client's event space, `will_severity` (info,
 * warning, error or fatal), `will_payload` (a C string, shorter than
 * FTB_MAX_PAYLOAD_DATA; NULL = empty). The event is declared with that
 * severity by the connect itself. It is published at most once; an agent
 * restart does not publish it (the library reconnects and hands it to the new
 * agent). Subscribers receive it as an ordinary event of this client.
 *
 * Returns FTB_SUCCESS, any error of FTB_Connect, FTB_ERR_NULL_POINTER
 * (will_event_name NULL), FTB_ERR_INVALID_EVENT_NAME, FTB_ERR_INVALID_VALUE
 * (bad severity, payload too long), or FTB_ERR_GENERAL when the agent refuses
 * the will (e.g. its namespace policy forbids publishing there; the reason is
 * printed once on stderr, as for FTB_Connect).
 */
#ifndef FTBX_LAST_WILL_H
#define FTBX_LAST_WILL_H

#include "libftb.h"

#ifdef __cplusplus
extern "C" {
#endif

int FTBX_Connect_with_last_will(const FTB_client_t *client_info, const char *will_event_name,
                                const char *will_severity, const char *will_payload,
                                FTB_client_handle_t *client_handle);

#ifdef __cplusplus
}
#endif

#endif /* FTBX_LAST_WILL_H */
