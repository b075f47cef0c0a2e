// The FTB 0.5 C entry points. Compiled twice: as is, and with -DFTB_TAG, where
// libftb.h renames the functions whose argument types FTB_TAG resizes (see
// "Two ABIs" in libftb.h), so one library serves programs built either way.
// The functions that do not depend on FTB_TAG are defined by the plain build.
//
// Each function converts between the C structs of its ABI and library.h,
// which does the work; nothing here throws or blocks beyond library.h.
#include <cstring>
#include <exception>

#include "client/ftb05/library.h"
#include "ftbx_last_will.h"
#include "libftb.h"

namespace {

namespace f5 = ftb::ftb05;

// Marks the subscription id we keep in a subscribe handle's mask payload.
constexpr char kSubscriptionMagic[8] = {'f', 't', 'b', '0', '5', 's', 'u', 'b'};

void copyField(char* dst, std::size_t cap, const std::string& src) {
  const std::size_t n = src.size() < cap ? src.size() : cap - 1;
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

f5::Mask maskOf(const FTB_event_t& e) {
  f5::Mask m;
  m.region = f5::fieldString(e.region, sizeof e.region);
  m.comp_cat = f5::fieldString(e.comp_cat, sizeof e.comp_cat);
  m.comp = f5::fieldString(e.comp, sizeof e.comp);
  m.event_name = f5::fieldString(e.event_name, sizeof e.event_name);
  m.severity = f5::fieldString(e.severity, sizeof e.severity);
  m.client_jobid = f5::fieldString(e.client_jobid, sizeof e.client_jobid);
  m.hostname = f5::fieldString(e.hostname, sizeof e.hostname);
  m.client_name = f5::fieldString(e.client_name, sizeof e.client_name);
  return m;
}

void storeMask(const f5::Mask& m, uint64_t id, FTB_event_t* e) {
  std::memset(e, 0, sizeof *e);
  copyField(e->region, sizeof e->region, m.region);
  copyField(e->comp_cat, sizeof e->comp_cat, m.comp_cat);
  copyField(e->comp, sizeof e->comp, m.comp);
  copyField(e->event_name, sizeof e->event_name, m.event_name);
  copyField(e->severity, sizeof e->severity, m.severity);
  copyField(e->client_jobid, sizeof e->client_jobid, m.client_jobid);
  copyField(e->hostname, sizeof e->hostname, m.hostname);
  copyField(e->client_name, sizeof e->client_name, m.client_name);
  std::memcpy(e->event_payload, kSubscriptionMagic, sizeof kSubscriptionMagic);
  std::memcpy(e->event_payload + sizeof kSubscriptionMagic, &id, sizeof id);
}

uint64_t subscriptionIdOf(const FTB_event_t& e) {
  if (std::memcmp(e.event_payload, kSubscriptionMagic, sizeof kSubscriptionMagic) != 0) return 0;
  uint64_t id;
  std::memcpy(&id, e.event_payload + sizeof kSubscriptionMagic, sizeof id);
  return id;
}

void toC(const f5::ReceivedEvent& r, FTB_receive_event_t* out) {
  std::memset(out, 0, sizeof *out);
  copyField(out->event_space, sizeof out->event_space, r.event_space);
  copyField(out->event_name, sizeof out->event_name, r.event_name);
  copyField(out->severity, sizeof out->severity, r.severity);
  copyField(out->client_jobid, sizeof out->client_jobid, r.client_jobid);
  copyField(out->client_name, sizeof out->client_name, r.client_name);
  out->client_extension = r.client_extension;
  out->seqnum = r.seqnum;
  copyField(out->incoming_src.hostname, sizeof out->incoming_src.hostname, r.hostname);
  copyField(out->incoming_src.pid_starttime, sizeof out->incoming_src.pid_starttime,
            r.pid_starttime);
  out->incoming_src.pid = r.pid;
  out->event_type = r.event_type;
  std::memcpy(out->event_payload, r.payload.data(), sizeof out->event_payload);
#ifdef FTB_TAG
  std::memcpy(out->dynamic_data, r.dynamic_data.data(), sizeof out->dynamic_data);
#endif
}

// The C API never lets an exception (std::bad_alloc, std::system_error) out.
template <typename F>
int guarded(F&& f) {
  try {
    return f();
  } catch (...) {
    return FTB_ERR_GENERAL;
  }
}

}  // namespace

extern "C" {

#ifndef FTB_TAG
// ---- ABI-neutral functions: defined once, by the plain build.

int FTB_Connect(const FTB_client_t* client_info, FTB_client_handle_t* client_handle) {
  return guarded([&] { return f5::connect(client_info, client_handle); });
}

int FTBX_Connect_with_last_will(const FTB_client_t* client_info, const char* will_event_name,
                                const char* will_severity, const char* will_payload,
                                FTB_client_handle_t* client_handle) {
  return guarded([&] {
    if (will_event_name == nullptr || will_severity == nullptr) return FTB_ERR_NULL_POINTER;
    auto severity = ftb::parseSeverity(will_severity);
    if (!severity.ok()) return FTB_ERR_INVALID_VALUE;
    ftb::LastWill will{.event_name = will_event_name,
                       .severity = *severity,
                       .payload = will_payload == nullptr ? "" : will_payload,
                       .tags = {}};
    return f5::connect(client_info, client_handle, will);
  });
}

int FTB_Publish(FTB_client_handle_t client_handle, const char* event_name,
                const FTB_event_properties_t* event_properties, FTB_event_handle_t* event_handle) {
  return guarded(
      [&] { return f5::publish(client_handle, event_name, event_properties, event_handle); });
}

int FTB_Declare_publishable_events(FTB_client_handle_t client_handle, const char* schema_file,
                                   const FTB_event_info_t* event_info, int num_events) {
  return guarded(
      [&] { return f5::declare(client_handle, schema_file, event_info, num_events); });
}

int FTB_Disconnect(FTB_client_handle_t client_handle) {
  return guarded([&] { return f5::disconnect(client_handle); });
}

int FTB_Compare_event_handles(const FTB_event_handle_t h1, const FTB_event_handle_t h2) {
  using f5::equalsIgnoreCase;
  using f5::fieldString;
  auto same = [](const char* a, const char* b, std::size_t cap) {
    return equalsIgnoreCase(fieldString(a, cap), fieldString(b, cap));
  };
  const bool equal =
      same(h1.client_id.region, h2.client_id.region, FTB_MAX_EVENTSPACE) &&
      same(h1.client_id.comp_cat, h2.client_id.comp_cat, FTB_MAX_EVENTSPACE) &&
      same(h1.client_id.comp, h2.client_id.comp, FTB_MAX_EVENTSPACE) &&
      same(h1.client_id.client_name, h2.client_id.client_name, FTB_MAX_CLIENT_NAME) &&
      h1.client_id.ext == h2.client_id.ext &&
      same(h1.location_id.hostname, h2.location_id.hostname, FTB_MAX_HOST_ADDR) &&
      h1.location_id.pid == h2.location_id.pid &&
      same(h1.location_id.pid_starttime, h2.location_id.pid_starttime, FTB_MAX_PID_TIME) &&
      same(h1.event_name, h2.event_name, FTB_MAX_EVENT_NAME) &&
      same(h1.severity, h2.severity, FTB_MAX_SEVERITY) && h1.seqnum == h2.seqnum;
  return equal ? FTB_SUCCESS : FTB_FAILURE;
}
#endif  // !FTB_TAG

// ---- Functions whose argument types depend on FTB_TAG: one definition per ABI
// (with FTB_TAG, libftb.h maps these names to their *_tagabi symbols).

int FTB_Subscribe(FTB_subscribe_handle_t* subscribe_handle, FTB_client_handle_t client_handle,
                  const char* subscription_str, int (*callback)(FTB_receive_event_t*, void*),
                  void* arg) {
  return guarded([&] {
    if (subscribe_handle == nullptr) return FTB_ERR_NULL_POINTER;
    if (client_handle.valid != 1) return FTB_ERR_INVALID_HANDLE;
    f5::Deliver deliver;
    if (callback != nullptr) {
      deliver = [callback, arg](const f5::ReceivedEvent& r) {
        FTB_receive_event_t event;
        toC(r, &event);
        (void)callback(&event, arg);
      };
    }
    return f5::subscribe(client_handle, subscription_str, std::move(deliver),
                         [&](const f5::Mask& mask, uint8_t type, uint64_t id) {
                           std::memset(subscribe_handle, 0, sizeof *subscribe_handle);
                           subscribe_handle->client_handle = client_handle;
                           storeMask(mask, id, &subscribe_handle->subscription_event);
                           subscribe_handle->subscription_type = type;
                           subscribe_handle->valid = 1;
                         });
  });
}

int FTB_Unsubscribe(FTB_subscribe_handle_t* subscribe_handle) {
  return guarded([&] {
    if (subscribe_handle == nullptr) return FTB_ERR_INVALID_HANDLE;
    if (int rc = f5::lookup(subscribe_handle->client_handle.client_id); rc != FTB_SUCCESS) {
      return rc;
    }
    if (subscribe_handle->valid == 0) return FTB_ERR_INVALID_HANDLE;
    subscribe_handle->valid = 0;
    const FTB_event_t& mask = subscribe_handle->subscription_event;
    return f5::unsubscribe(subscribe_handle->client_handle.client_id, subscriptionIdOf(mask),
                           maskOf(mask));
  });
}

int FTB_Poll_event(FTB_subscribe_handle_t shandle, FTB_receive_event_t* receive_event) {
  return guarded([&] {
    if (receive_event == nullptr) return FTB_ERR_NULL_POINTER;
    if (shandle.valid == 0) return FTB_ERR_INVALID_HANDLE;
    f5::ReceivedEvent r;
    const int rc = f5::poll(shandle.client_handle.client_id, maskOf(shandle.subscription_event), &r);
    if (rc == FTB_SUCCESS) toC(r, receive_event);
    return rc;
  });
}

int FTB_Get_event_handle(const FTB_receive_event_t receive_event,
                         FTB_event_handle_t* event_handle) {
  if (event_handle == nullptr) return FTB_ERR_NULL_POINTER;
  return guarded([&] {
    std::string region, comp_cat, comp;
    if (!f5::splitEventSpace(f5::fieldString(receive_event.event_space, FTB_MAX_EVENTSPACE),
                             &region, &comp_cat, &comp)) {
      return FTB_ERR_EVENTSPACE_FORMAT;
    }
    std::memset(event_handle, 0, sizeof *event_handle);
    copyField(event_handle->client_id.region, sizeof event_handle->client_id.region, region);
    copyField(event_handle->client_id.comp_cat, sizeof event_handle->client_id.comp_cat, comp_cat);
    copyField(event_handle->client_id.comp, sizeof event_handle->client_id.comp, comp);
    copyField(event_handle->client_id.client_name, sizeof event_handle->client_id.client_name,
              f5::fieldString(receive_event.client_name, FTB_MAX_CLIENT_NAME));
    event_handle->client_id.ext = receive_event.client_extension;
    copyField(event_handle->location_id.hostname, sizeof event_handle->location_id.hostname,
              f5::fieldString(receive_event.incoming_src.hostname, FTB_MAX_HOST_ADDR));
    copyField(event_handle->location_id.pid_starttime,
              sizeof event_handle->location_id.pid_starttime,
              f5::fieldString(receive_event.incoming_src.pid_starttime, FTB_MAX_PID_TIME));
    event_handle->location_id.pid = receive_event.incoming_src.pid;
    copyField(event_handle->event_name, sizeof event_handle->event_name,
              f5::fieldString(receive_event.event_name, FTB_MAX_EVENT_NAME));
    copyField(event_handle->severity, sizeof event_handle->severity,
              f5::fieldString(receive_event.severity, FTB_MAX_SEVERITY));
    event_handle->seqnum = receive_event.seqnum;
    return FTB_SUCCESS;
  });
}

#ifdef FTB_TAG
int FTB_Add_tag(FTB_client_handle_t handle, FTB_tag_t tag, const char* tag_data,
                FTB_tag_len_t data_len) {
  return guarded([&] { return f5::addTag(handle, tag, tag_data, data_len); });
}

int FTB_Remove_tag(FTB_client_handle_t handle, FTB_tag_t tag) {
  return guarded([&] { return f5::removeTag(handle, tag); });
}

int FTB_Read_tag(const FTB_receive_event_t* event, FTB_tag_t tag, char* tag_data,
                 FTB_tag_len_t* data_len) {
  if (event == nullptr || data_len == nullptr) return FTB_ERR_NULL_POINTER;
  const auto* area = reinterpret_cast<const unsigned char*>(event->dynamic_data);
  const std::size_t size = sizeof event->dynamic_data;
  std::size_t pos = 1;
  for (unsigned count = area[0]; count > 0; --count) {
    if (pos + 2 > size) break;
    const unsigned char this_tag = area[pos];
    const std::size_t len = area[pos + 1];
    if (pos + 2 + len > size) break;
    if (this_tag == tag) {
      if (*data_len < len) return FTB_ERR_TAG_NO_SPACE;
      if (tag_data == nullptr && len > 0) return FTB_ERR_NULL_POINTER;
      if (len > 0) std::memcpy(tag_data, area + pos + 2, len);
      *data_len = static_cast<FTB_tag_len_t>(len);
      return FTB_SUCCESS;
    }
    pos += 2 + len;
  }
  return FTB_ERR_TAG_NOT_FOUND;
}
#endif  // FTB_TAG

}  // extern "C"
