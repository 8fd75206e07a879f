// Binary state streams for checkpoints: a growable writer and a bounds-checked reader of raw
// native-endian values (a checkpoint is read back by the same build on the same machine kind;
// the header's byte-order mark rejects a foreign one).
#ifndef TC_WORLD_STATE_IO_H
#define TC_WORLD_STATE_IO_H

#include "world/world_internal.h"

typedef struct tc_state_writer {
    uint8_t* data;
    size_t size, capacity;
    bool failed; ///< out of memory: the stream is incomplete
} tc_state_writer;

typedef struct tc_state_reader {
    const uint8_t* data;
    size_t size, pos;
    bool failed; ///< read past the end or a bad value: the rest reads as zeros
} tc_state_reader;

void tc_state_write(tc_state_writer* w, const void* data, size_t size);
void tc_state_write_i64(tc_state_writer* w, int64_t v);
void tc_state_write_real(tc_state_writer* w, tc_real v);
void tc_state_write_vec3(tc_state_writer* w, tc_vec3 v);
void tc_state_write_quat(tc_state_writer* w, tc_quat q);
/// A length-prefixed string (NULL writes as "").
void tc_state_write_string(tc_state_writer* w, const char* s);
void tc_state_writer_free(tc_state_writer* w);

bool tc_state_read(tc_state_reader* r, void* out, size_t size);
int64_t tc_state_read_i64(tc_state_reader* r);
tc_real tc_state_read_real(tc_state_reader* r);
tc_vec3 tc_state_read_vec3(tc_state_reader* r);
tc_quat tc_state_read_quat(tc_state_reader* r);
/// Reads a string written by tc_state_write_string into a new tc_strdup'ed buffer (NULL on failure).
char* tc_state_read_string(tc_state_reader* r);
/// Reads an int64 and checks lo <= v <= hi (else marks the reader failed and returns lo).
int64_t tc_state_read_count(tc_state_reader* r, int64_t lo, int64_t hi);

/// Writes the world's clock, its body-slot table and every kind's state. Fails with
/// TC_RESULT_UNSUPPORTED, naming the kind, when a kind present in the world has no state hooks.
tc_result tc_world_write_state(const tc_world* w, tc_state_writer* out, tc_error* error);
/// Restores a state written by tc_world_write_state into a world holding the same bodies (built
/// from the same scene, with the same removals replayed); checks the slot table matches first.
tc_result tc_world_read_state(tc_world* w, tc_state_reader* in, const char* file, tc_error* error);
#endif
