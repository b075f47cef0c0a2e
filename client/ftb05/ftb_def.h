/*
 * ftb_def.h - types, limits and return codes of the classic FTB 0.5 C API.
 *
 * Part of ftb's source-compatible re-implementation of the CIFTS FTB 0.6.2
 * client interface (API version 0.5). Every name, value, field order and field
 * type here matches the public headers of FTB 0.6.2, so the structs have the
 * same layout (x86_64 sizes are pinned by tests/unit/ftb05/layout_test.c) and
 * programs written for CIFTS FTB compile unchanged. Behaviour is specified in
 * client/ftb05/API_NOTES.md.
 *
 * Usable from C99 and C++. Programs normally include "libftb.h", not this file.
 *
 * FTB_TAG: when defined before inclusion, the optional dynamic-tag API appears
 * and FTB_receive_event_t (and FTB_event_t) grow a tag area. A program and the
 * library it links must agree on FTB_TAG, exactly as with CIFTS FTB.
 */
#ifndef FTB_DEF_H
#define FTB_DEF_H

#include <stdint.h>
#include <sys/types.h> /* pid_t */
#include <unistd.h>    /* CIFTS programs rely on this being pulled in (sleep, getpid). */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Return codes (every API call returns one of these) ---- */
#define FTB_SUCCESS                 0
#define FTB_ERR_GENERAL             (-1)
#define FTB_ERR_EVENTSPACE_FORMAT   (-2)
#define FTB_ERR_SUBSCRIPTION_STYLE  (-3)
#define FTB_ERR_INVALID_VALUE       (-4)
#define FTB_ERR_DUP_CALL            (-5)
#define FTB_ERR_NULL_POINTER        (-6)
#define FTB_ERR_NOT_SUPPORTED       (-7)
#define FTB_ERR_INVALID_FIELD       (-8)
#define FTB_ERR_INVALID_HANDLE      (-9)
#define FTB_ERR_DUP_EVENT           (-10)
#define FTB_ERR_INVALID_SCHEMA_FILE (-11)
#define FTB_ERR_INVALID_EVENT_NAME  (-12)
#define FTB_ERR_INVALID_EVENT_TYPE  (-13)
#define FTB_ERR_SUBSCRIPTION_STR    (-14)
#define FTB_ERR_FILTER_ATTR         (-15)
#define FTB_ERR_FILTER_VALUE        (-16)
#define FTB_GOT_NO_EVENT            (-17) /* FTB_Poll_event: nothing queued for this handle */
#define FTB_FAILURE                 (-18) /* FTB_Compare_event_handles: handles differ */
#define FTB_ERR_INVALID_PARAMETER   (-19)
#define FTB_ERR_NETWORK_GENERAL     (-20)
#define FTB_ERR_NETWORK_NO_ROUTE    (-21)

#ifdef FTB_TAG
#define FTB_ERR_TAG_NO_SPACE        (-22)
#define FTB_ERR_TAG_CONFLICT        (-23)
#define FTB_ERR_TAG_NOT_FOUND       (-24)
#endif

/*
 * Subscription-style bits. Note: FTB_client_t.client_subscription_style is a
 * *string* ("FTB_SUBSCRIPTION_POLLING", "..._NOTIFY", "..._BOTH", "..._NONE");
 * these integers are the library's internal flags, kept for compatibility.
 */
#define FTB_SUBSCRIPTION_NONE       0x0
#define FTB_SUBSCRIPTION_POLLING    0x1
#define FTB_SUBSCRIPTION_NOTIFY     0x2

/* ---- Sizes. Each string limit includes the terminating NUL. ---- */
#define FTB_DEFAULT_POLLING_Q_LEN   64  /* 0.6.2's value; libftb's default is 65536 (docs/FTB05.md) */
#define FTB_MAX_CLIENTSCHEMA_VER    8
#define FTB_MAX_EVENTSPACE          64
#define FTB_MAX_CLIENT_NAME         16
#define FTB_MAX_CLIENT_JOBID        16
#define FTB_MAX_EVENT_NAME          32
#define FTB_MAX_SEVERITY            16
#define FTB_MAX_HOST_ADDR           64
#define FTB_MAX_PID_TIME            32
#define FTB_MAX_PAYLOAD_DATA        368
#define FTB_MAX_SUBSCRIPTION_STYLE  32
/* Budget of one event on the wire in CIFTS FTB; bounds the tag area below. */
#define FTB_EVENT_SIZE              720

typedef char FTB_eventspace_t[FTB_MAX_EVENTSPACE];
typedef char FTB_client_name_t[FTB_MAX_CLIENT_NAME];
typedef char FTB_client_schema_ver_t[FTB_MAX_CLIENTSCHEMA_VER];
typedef char FTB_client_jobid_t[FTB_MAX_CLIENT_JOBID];
typedef char FTB_severity_t[FTB_MAX_SEVERITY];
typedef char FTB_event_name_t[FTB_MAX_EVENT_NAME];
typedef char FTB_hostip_t[FTB_MAX_HOST_ADDR];
typedef char FTB_subscription_style_t[FTB_MAX_SUBSCRIPTION_STYLE];
typedef char FTB_pid_starttime_t[FTB_MAX_PID_TIME];

/* Filled by the caller of FTB_Connect. */
typedef struct FTB_client {
    FTB_client_schema_ver_t client_schema_ver;           /* informational, ignored */
    FTB_eventspace_t event_space;                        /* "region.category.component" */
    FTB_client_name_t client_name;
    FTB_client_jobid_t client_jobid;
    FTB_subscription_style_t client_subscription_style;  /* a string, see above */
    int client_polling_queue_len;                        /* <= 0: $FTB_POLLING_QUEUE_LEN, else 65536 */
} FTB_client_t;

/* One publishable event, for FTB_Declare_publishable_events without a schema. */
typedef struct FTB_event_info {
    FTB_event_name_t event_name;
    FTB_severity_t severity;        /* "fatal", "error", "warning" or "info" */
} FTB_event_info_t;

/* Optional argument of FTB_Publish. */
typedef struct FTB_event_properties {
    uint8_t event_type;             /* 1 = normal event, 2 = response event */
    char event_payload[FTB_MAX_PAYLOAD_DATA];
} FTB_event_properties_t;

/* Where an event came from: the publishing process. */
typedef struct FTB_location_id {
    char hostname[FTB_MAX_HOST_ADDR];   /* in CIFTS FTB, the host's IPv4 address as text */
    FTB_pid_starttime_t pid_starttime;
    pid_t pid;
} FTB_location_id_t;

#ifdef FTB_TAG
typedef uint8_t FTB_tag_t;
typedef uint8_t FTB_tag_len_t;

/*
 * Size of the tag area of an event: what FTB_EVENT_SIZE leaves after the fixed
 * fields, 138 bytes on every ABI with a 4-byte int. A size_t expression.
 */
#define FTB_MAX_DYNAMIC_DATA_SIZE                                              \
    (FTB_EVENT_SIZE - sizeof(FTB_eventspace_t) - sizeof(FTB_event_name_t) -    \
     sizeof(FTB_severity_t) - sizeof(FTB_client_jobid_t) -                     \
     sizeof(FTB_client_name_t) - sizeof(FTB_hostip_t) - sizeof(int) -          \
     sizeof(FTB_tag_len_t) - sizeof(FTB_event_properties_t))
#endif

/* An event as handed to FTB_Poll_event's caller or to a callback. */
typedef struct FTB_receive_event_info {
    FTB_eventspace_t event_space;   /* of the publisher, "region.category.component" */
    FTB_event_name_t event_name;
    FTB_severity_t severity;
    FTB_client_jobid_t client_jobid;
    FTB_client_name_t client_name;
    uint8_t client_extension;
    uint16_t seqnum;                /* per publishing connection, starts at 1 */
    FTB_location_id_t incoming_src;
    uint8_t event_type;
    char event_payload[FTB_MAX_PAYLOAD_DATA];
#ifdef FTB_TAG
    FTB_tag_len_t len;
    char dynamic_data[FTB_MAX_DYNAMIC_DATA_SIZE];
#endif
} FTB_receive_event_t;

/* Handles; their definitions are in ftb_client_lib_defs.h. */
typedef struct FTB_client_handle FTB_client_handle_t;
typedef struct FTB_subscribe_handle FTB_subscribe_handle_t;
typedef struct FTB_event_handle FTB_event_handle_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FTB_DEF_H */
