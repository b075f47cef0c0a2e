/*
 * libftb.h - the classic FTB 0.5 C API (CIFTS FTB 0.6.2), on ftb's backplane.
 *
 * Programs written for CIFTS FTB compile against this header unchanged: same
 * function names and signatures, same constants, same struct layouts. Every
 * call returns FTB_SUCCESS or a negative FTB_* code from ftb_def.h, and never
 * exits or aborts the host program. The exact validation order and error code
 * of each call are in client/ftb05/API_NOTES.md.
 *
 *     FTB_client_t cinfo;
 *     FTB_client_handle_t handle;
 *     FTB_subscribe_handle_t shandle;
 *     FTB_receive_event_t event;
 *     memset(&cinfo, 0, sizeof cinfo);
 *     strcpy(cinfo.event_space, "FTB.EXAMPLES.WATCHDOG");
 *     strcpy(cinfo.client_subscription_style, "FTB_SUBSCRIPTION_POLLING");
 *     if (FTB_Connect(&cinfo, &handle) != FTB_SUCCESS) return 1;
 *     FTB_Subscribe(&shandle, handle, "event_space=ftb.all.all", NULL, NULL);
 *     while (FTB_Poll_event(shandle, &event) == FTB_SUCCESS) { ... }
 *     FTB_Disconnect(handle);
 *
 * Threads: any thread may call any function. Callbacks run on a library
 * thread (one per notify-capable client, events in arrival order) and may call
 * the API, including FTB_Unsubscribe and FTB_Disconnect.
 *
 * Usable from C99 and C++.
 */
#ifndef LIBFTB_H
#define LIBFTB_H

#include "ftb_def.h"
#include "ftb_client_lib_defs.h"

/*
 * Two ABIs in one library. FTB_TAG grows FTB_receive_event_t and
 * FTB_subscribe_handle_t, so the functions taking them (or handing them to a
 * callback) exist twice in libftb: programs built with FTB_TAG reach the
 * FTB_TAG versions through these macros, without any change to their source.
 * The other functions are shared by both.
 */
#ifdef FTB_TAG
#define FTB_Subscribe FTB_Subscribe_tagabi
#define FTB_Unsubscribe FTB_Unsubscribe_tagabi
#define FTB_Poll_event FTB_Poll_event_tagabi
#define FTB_Get_event_handle FTB_Get_event_handle_tagabi
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Registers a client named by client_info; fills *client_handle. */
int FTB_Connect(const FTB_client_t *client_info, FTB_client_handle_t *client_handle);

/*
 * Publishes a declared event. event_properties may be NULL (a normal event with
 * an empty payload). *event_handle identifies the published event.
 */
int FTB_Publish(FTB_client_handle_t client_handle, const char *event_name,
                const FTB_event_properties_t *event_properties,
                FTB_event_handle_t *event_handle);

/*
 * Subscribes with a filter string such as "severity=fatal,event_space=ftb.mpi.all"
 * ("" matches everything). callback == NULL: a polling subscription, read with
 * FTB_Poll_event; otherwise callback(event, arg) runs for each matching event,
 * with event valid only during the call; its return value is ignored.
 */
int FTB_Subscribe(FTB_subscribe_handle_t *subscribe_handle, FTB_client_handle_t client_handle,
                  const char *subscription_str,
                  int (*callback)(FTB_receive_event_t *, void *), void *arg);

/* Cancels a subscription and marks *subscribe_handle invalid. */
int FTB_Unsubscribe(FTB_subscribe_handle_t *subscribe_handle);

/*
 * Declares the events this client may publish: from schema_file if it is not
 * NULL (event_info and num_events are then ignored), else from the num_events
 * entries of event_info.
 */
int FTB_Declare_publishable_events(FTB_client_handle_t client_handle, const char *schema_file,
                                   const FTB_event_info_t *event_info, int num_events);

/*
 * Takes the oldest queued event matching shandle's filter. Never blocks:
 * FTB_GOT_NO_EVENT when there is none.
 */
int FTB_Poll_event(FTB_subscribe_handle_t shandle, FTB_receive_event_t *receive_event);

/* Unregisters the client; its subscriptions and queued events are dropped. */
int FTB_Disconnect(FTB_client_handle_t client_handle);

/* The handle of a received event, comparable with the publisher's handle. */
int FTB_Get_event_handle(const FTB_receive_event_t receive_event,
                         FTB_event_handle_t *event_handle);

/* FTB_SUCCESS if both handles name the same event, FTB_FAILURE otherwise. */
int FTB_Compare_event_handles(const FTB_event_handle_t event_handle1,
                              const FTB_event_handle_t event_handle2);

#ifdef FTB_TAG
/*
 * Dynamic tags: small (tag, data) pairs stamped on every event published from
 * this process after they are added, e.g. a job id. A tag belongs to the client
 * that added it.
 *
 * FTB_Add_tag adds the tag, or replaces its data if this client owns it.
 *   FTB_ERR_TAG_NO_SPACE: the process's tags would exceed FTB_MAX_DYNAMIC_DATA_SIZE;
 *   FTB_ERR_TAG_CONFLICT: another client owns the tag.
 * FTB_Remove_tag: FTB_ERR_TAG_NOT_FOUND, or FTB_ERR_TAG_CONFLICT if not the owner.
 * FTB_Read_tag reads a tag of a received event; *data_len is the capacity of
 * tag_data on entry and the data's length on success.
 *   FTB_ERR_TAG_NOT_FOUND: the event has no such tag;
 *   FTB_ERR_TAG_NO_SPACE: the data is longer than *data_len.
 */
int FTB_Add_tag(FTB_client_handle_t handle, FTB_tag_t tag, const char *tag_data,
                FTB_tag_len_t data_len);

int FTB_Remove_tag(FTB_client_handle_t handle, FTB_tag_t tag);

int FTB_Read_tag(const FTB_receive_event_t *event, FTB_tag_t tag, char *tag_data,
                 FTB_tag_len_t *data_len);
#endif /* FTB_TAG */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LIBFTB_H */
