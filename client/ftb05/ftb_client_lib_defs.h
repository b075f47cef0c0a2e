/*
 * ftb_client_lib_defs.h - the handle structs of the classic FTB 0.5 C API.
 *
 * Part of ftb's source-compatible re-implementation of the CIFTS FTB 0.6.2
 * client interface. CIFTS documents these handles as opaque, but they are
 * plain structs that programs copy by value, memcpy into event payloads
 * (response events carry an FTB_event_handle_t) and sometimes read fields of
 * (e.g. subscribe_handle->subscription_event.event_name). Their field order,
 * types and layout therefore match FTB 0.6.2 exactly; see API_NOTES.md for what
 * the library stores in each field.
 *
 * Usable from C99 and C++. Programs normally include "libftb.h", not this file.
 */
#ifndef FTB_CLIENT_LIB_DEFS_H
#define FTB_CLIENT_LIB_DEFS_H

#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "ftb_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error-handling modes of CIFTS FTB; only FTB_ERR_HANDLE_NONE was ever used. */
#define FTB_ERR_HANDLE_NONE          0x0
#define FTB_ERR_HANDLE_NOTIFICATION  0x1
#define FTB_ERR_HANDLE_RECOVER       0x2

/* Identity of one connected client; the event space is stored split in three. */
typedef struct FTB_client_id {
    FTB_eventspace_t region;
    FTB_eventspace_t comp_cat;
    FTB_eventspace_t comp;
    FTB_client_name_t client_name;
    uint8_t ext;                    /* platform extension; 0 on Linux */
} FTB_client_id_t;

/* Returned by FTB_Connect; valid == 1 for a handle the library produced. */
struct FTB_client_handle {
    uint8_t valid;
    FTB_client_id_t client_id;
};

/* A client located in a process. */
typedef struct FTB_id {
    FTB_location_id_t location_id;
    FTB_client_id_t client_id;
} FTB_id_t;

/*
 * An event as carried between library and agent in CIFTS FTB; here it is also
 * the subscription mask stored in a subscribe handle (unset filter fields hold
 * "all").
 */
typedef struct FTB_event {
    FTB_eventspace_t region;
    FTB_eventspace_t comp_cat;
    FTB_eventspace_t comp;
    FTB_event_name_t event_name;
    FTB_severity_t severity;
    FTB_client_jobid_t client_jobid;
    FTB_client_name_t client_name;
    FTB_hostip_t hostname;
    uint16_t seqnum;
    uint8_t event_type;
    char event_payload[FTB_MAX_PAYLOAD_DATA];
#ifdef FTB_TAG
    FTB_tag_len_t len;
    char dynamic_data[FTB_MAX_DYNAMIC_DATA_SIZE];
#endif
} FTB_event_t;

/* Filled by FTB_Subscribe; valid becomes 0 after FTB_Unsubscribe. */
struct FTB_subscribe_handle {
    FTB_client_handle_t client_handle;
    FTB_event_t subscription_event;
    uint8_t subscription_type;      /* FTB_SUBSCRIPTION_POLLING or FTB_SUBSCRIPTION_NOTIFY */
    uint8_t valid;
};

/*
 * Identifies one published event: filled by FTB_Publish for the publisher and
 * by FTB_Get_event_handle for a receiver; equal handles compare FTB_SUCCESS in
 * FTB_Compare_event_handles. 360 bytes, so it fits in an event payload.
 */
struct FTB_event_handle {
    FTB_event_name_t event_name;
    FTB_severity_t severity;
    FTB_client_id_t client_id;
    uint16_t seqnum;
    FTB_location_id_t location_id;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FTB_CLIENT_LIB_DEFS_H */
