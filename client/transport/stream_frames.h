// Frames over a byte stream: the wire form of the local Unix-socket transport
// (`unix://` endpoints). Each frame is a 4-byte little-endian length, then
// that many bytes (one wire::encode()d Envelope), so one read can carry many
// frames and one frame may need many reads.
//
//   StreamFrameReader reader(max_frame_bytes);
//   switch (reader.readFrom(fd)) { ... }          // after poll says readable
//   while (auto frame = reader.next()) use(*frame);  // views valid until readFrom
//
//   StreamFrameWriter writer;
//   if (!writer.trySend(fd, frame)) queue(frame);     // an earlier frame is still going out
//   writer.flush(fd);                                 // when poll says writable
//
// Threading: neither class is thread-safe; each belongs to its connection's owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ftb::wire {

inline constexpr std::size_t kStreamFrameHeader = 4;

class StreamFrameReader {
 public:
  enum class Read {
    kData,      // bytes arrived (there may or may not be a whole frame yet)
    kNothing,   // no bytes ready (EAGAIN)
    kClosed,    // the peer closed its end, or the connection failed (errno_value() says which)
    kTooLarge,  // a frame announced more than max_frame_bytes: the stream cannot be
                // trusted (whole frames before it still come out of next())
  };

  explicit StreamFrameReader(std::size_t max_frame_bytes) : max_frame_(max_frame_bytes) {}

  // One non-blocking read of what the kernel holds (as much as the buffer has
  // room for; the buffer grows with what arrives, from 4 KiB). Frames
  // returned by next() before this call become invalid; frames not yet
  // returned stay.
  Read readFrom(int fd);

  // The next whole frame read so far, if any.
  std::optional<std::string_view> next();
  bool hasFrame() const;
  int errnoValue() const { return errno_; }
  // The bytes the reader holds for this connection (what it costs).
  std::size_t capacity() const { return capacity_; }
  // Length announced by the frame that was too large (after kTooLarge).
  uint64_t announced() const { return announced_; }

 private:
  std::size_t max_frame_;
  std::unique_ptr<char[]> data_;  // not std::string: no zero-filling of each read's room
  std::size_t capacity_ = 0;
  std::size_t start_ = 0;    // first byte not yet handed out
  std::size_t end_ = 0;      // one past the last byte read
  std::size_t checked_ = 0;  // the next frame header not yet checked against max_frame_
  int errno_ = 0;
  uint64_t announced_ = 0;
};

class StreamFrameWriter {
 public:
  // Writes `frame` without blocking. false, and nothing taken, when the kernel
  // takes none of it or part of an earlier frame is still waiting; a frame the
  // kernel takes in part counts as sent, its rest goes out on flush().
  // Throws nothing; a failed connection returns true and sets failed() (the
  // reader will see it closed).
  bool trySend(int fd, std::string_view frame);
  // Writes what is waiting; true when nothing is left.
  bool flush(int fd);
  bool pending() const { return start_ < pending_.size(); }
  std::size_t pendingBytes() const { return pending_.size() - start_; }
  bool failed() const { return failed_; }

 private:
  std::string pending_;
  std::size_t start_ = 0;
  bool failed_ = false;
};

}  // namespace ftb::wire
