// The process-wide state behind the FTB 0.5 C API: connected clients (each one
// an ftb::Client of the C++ SDK), their declared events, polling queues,
// subscriptions, and the FTB_TAG tag table.
// Internal to //client/ftb05; libftb.cc is the only caller.
//
// Everything here uses only the ABI-neutral FTB 0.5 types (no FTB_TAG-sized
// structs): libftb.cc, compiled once per ABI, converts ReceivedEvent and Mask
// to and from FTB_receive_event_t and FTB_event_t.
//
// Every function returns an FTB_* code (ftb_def.h), never throws, and may be
// called from any thread, including from a subscription callback. Callbacks
// run on the client's SDK dispatch thread (one per client, in arrival order),
// never with a library lock held. Validation order and codes follow client/ftb05/API_NOTES.md.
#pragma once

#include <cstdint>
#include <functional>

#include "client/client.h"
#include "client/ftb05/subscription_mask.h"
#include "ftb_client_lib_defs.h"
#include "ftb_def.h"

namespace ftb::ftb05 {

inline constexpr int kErrTagNoSpace = -22;   // FTB_ERR_TAG_NO_SPACE
inline constexpr int kErrTagConflict = -23;  // FTB_ERR_TAG_CONFLICT
inline constexpr int kErrTagNotFound = -24;  // FTB_ERR_TAG_NOT_FOUND

// Runs a user callback for one event (libftb.cc builds the ABI's struct).
using Deliver = std::function<void(const ReceivedEvent&)>;

// `will`: FTBX_Connect_with_last_will (ftbx_last_will.h), checked here first.
int connect(const FTB_client_t* info, FTB_client_handle_t* handle,
            const std::optional<LastWill>& will = std::nullopt);
int declare(const FTB_client_handle_t& handle, const char* schema_file,
            const FTB_event_info_t* events, int num_events);
int publish(const FTB_client_handle_t& handle, const char* event_name,
            const FTB_event_properties_t* properties, FTB_event_handle_t* event_handle);
int disconnect(const FTB_client_handle_t& handle);

// LOOKUP: FTB_SUCCESS, FTB_ERR_GENERAL (no client connected in this process)
// or FTB_ERR_INVALID_HANDLE.
int lookup(const FTB_client_id_t& client);

// FTB_Subscribe from step 2 (handle valid) on. deliver is empty for a polling
// subscription. `fill` stores the mask, the subscription type and the id in
// the caller's handle; it runs before the subscription can deliver anything.
int subscribe(const FTB_client_handle_t& handle, const char* subscription, Deliver deliver,
              const std::function<void(const Mask&, uint8_t type, uint64_t id)>& fill);
// FTB_Unsubscribe after the handle checks. id 0 (a handle we did not fill):
// the client's first subscription with an equal mask.
int unsubscribe(const FTB_client_id_t& client, uint64_t id, const Mask& mask);
// FTB_Poll_event from step 3 (LOOKUP) on: the oldest queued event matching mask.
int poll(const FTB_client_id_t& client, const Mask& mask, ReceivedEvent* event);

// FTB_TAG, process-wide table; owners are client identities.
int addTag(const FTB_client_handle_t& handle, uint8_t tag, const char* data, uint8_t len);
int removeTag(const FTB_client_handle_t& handle, uint8_t tag);

}  // namespace ftb::ftb05
