// A hash index from body name to slot, so tc_world_find_body and the scene loader's
// duplicate-name check stay O(1) in worlds of tens of thousands of bodies.
#ifndef TC_WORLD_NAME_INDEX_H
#define TC_WORLD_NAME_INDEX_H

#include <stdbool.h>
#include <stdint.h>

/// Open addressing with linear probing; entries are slot numbers, -1 = empty. Capacity is a
/// power of two kept at least twice the count.
typedef struct tc_name_index {
    int32_t* entries;
    int capacity;
    int count;
} tc_name_index;

/// Reads the name of a slot (the world's slot pool owns the strings).
typedef const char* tc_slot_name_fn(const void* owner, int32_t slot);

/// Adds `slot` under `name` (empty names are not indexed). Returns false when out of memory.
bool tc_name_index_insert(tc_name_index* idx, const void* owner, tc_slot_name_fn* name_of, int32_t slot);
/// Removes `slot`, which must be indexed under `name`.
void tc_name_index_remove(tc_name_index* idx, const void* owner, tc_slot_name_fn* name_of, int32_t slot);
/// The lowest slot named `name`, or -1.
int32_t tc_name_index_find(const tc_name_index* idx, const void* owner, tc_slot_name_fn* name_of, const char* name);
void tc_name_index_free(tc_name_index* idx);
#endif
