// The FTB 0.5 C API headers seen from C++: they compile cleanly under C++20 with
// our warnings, with FTB_TAG on (the larger surface), and every function has C
// linkage, so C++ programs link against the same symbols as C programs.
// Compile-time checks only; the program itself just returns 0.
#include <libftb.h>

#include <type_traits>

// Re-declaring with C linkage is ill-formed if the header gave C++ linkage.
extern "C" {
int FTB_Connect(const FTB_client_t*, FTB_client_handle_t*);
int FTB_Publish(FTB_client_handle_t, const char*, const FTB_event_properties_t*,
                FTB_event_handle_t*);
int FTB_Subscribe(FTB_subscribe_handle_t*, FTB_client_handle_t, const char*,
                  int (*)(FTB_receive_event_t*, void*), void*);
int FTB_Unsubscribe(FTB_subscribe_handle_t*);
int FTB_Declare_publishable_events(FTB_client_handle_t, const char*, const FTB_event_info_t*,
                                   int);
int FTB_Poll_event(FTB_subscribe_handle_t, FTB_receive_event_t*);
int FTB_Disconnect(FTB_client_handle_t);
int FTB_Get_event_handle(const FTB_receive_event_t, FTB_event_handle_t*);
int FTB_Compare_event_handles(const FTB_event_handle_t, const FTB_event_handle_t);
int FTB_Add_tag(FTB_client_handle_t, FTB_tag_t, const char*, FTB_tag_len_t);
int FTB_Remove_tag(FTB_client_handle_t, FTB_tag_t);
int FTB_Read_tag(const FTB_receive_event_t*, FTB_tag_t, char*, FTB_tag_len_t*);
}

// Programs memcpy these structs and put event handles in payloads.
static_assert(std::is_trivially_copyable_v<FTB_receive_event_t>);
static_assert(std::is_trivially_copyable_v<FTB_subscribe_handle_t>);
static_assert(std::is_trivially_copyable_v<FTB_event_handle_t>);
static_assert(std::is_standard_layout_v<FTB_client_t>);
static_assert(sizeof(FTB_event_handle_t) <= FTB_MAX_PAYLOAD_DATA);
static_assert(FTB_MAX_DYNAMIC_DATA_SIZE == 138);

int main() { return 0; }
