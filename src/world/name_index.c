#include "world/name_index.h"

#include "core/core.h"

#include <string.h>

static uint32_t bucket_of(const char* name, int capacity) {
    uint64_t h = tc_hash_bytes(TC_HASH_SEED, name, strlen(name));
    return (uint32_t)(h ^ (h >> 32)) & (uint32_t)(capacity - 1);
}

static void place(tc_name_index* idx, const char* name, int32_t slot) {
    uint32_t mask = (uint32_t)idx->capacity - 1, b = bucket_of(name, idx->capacity);
    while (idx->entries[b] >= 0) b = (b + 1) & mask;
    idx->entries[b] = slot;
}

static bool grow(tc_name_index* idx, const void* owner, tc_slot_name_fn* name_of) {
    int capacity = idx->capacity ? 2 * idx->capacity : 64;
    int32_t* fresh = tc_alloc((size_t)capacity * sizeof *fresh);
    if (!fresh) return false;
    memset(fresh, 0xff, (size_t)capacity * sizeof *fresh); // -1 everywhere
    tc_name_index old = *idx;
    idx->entries = fresh;
    idx->capacity = capacity;
    for (int i = 0; i < old.capacity; ++i)
        if (old.entries[i] >= 0) place(idx, name_of(owner, old.entries[i]), old.entries[i]);
    tc_free(old.entries, (size_t)old.capacity * sizeof *old.entries);
    return true;
}

bool tc_name_index_insert(tc_name_index* idx, const void* owner, tc_slot_name_fn* name_of, int32_t slot) {
    const char* name = name_of(owner, slot);
    if (!name[0]) return true;
    if (2 * (idx->count + 1) > idx->capacity && !grow(idx, owner, name_of)) return false;
    place(idx, name, slot);
    idx->count++;
    return true;
}

// Backward-shift deletion keeps every probe chain unbroken without tombstones.
void tc_name_index_remove(tc_name_index* idx, const void* owner, tc_slot_name_fn* name_of, int32_t slot) {
    const char* name = name_of(owner, slot);
    if (!name[0] || !idx->capacity) return;
    uint32_t mask = (uint32_t)idx->capacity - 1, hole = bucket_of(name, idx->capacity);
    while (idx->entries[hole] != slot) {
        if (idx->entries[hole] < 0) return; // not indexed
        hole = (hole + 1) & mask;
    }
    idx->entries[hole] = -1;
    idx->count--;
    for (uint32_t j = (hole + 1) & mask; idx->entries[j] >= 0; j = (j + 1) & mask) {
        uint32_t home = bucket_of(name_of(owner, idx->entries[j]), idx->capacity);
        // the entry at j may move into the hole unless its home lies cyclically in (hole, j]
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        idx->entries[hole] = idx->entries[j];
        idx->entries[j] = -1;
        hole = j;
    }
}

int32_t tc_name_index_find(const tc_name_index* idx, const void* owner, tc_slot_name_fn* name_of, const char* name) {
    if (!name || !name[0] || !idx->capacity) return -1;
    uint32_t mask = (uint32_t)idx->capacity - 1;
    int32_t best = -1;
    for (uint32_t b = bucket_of(name, idx->capacity); idx->entries[b] >= 0; b = (b + 1) & mask) {
        int32_t s = idx->entries[b];
        if ((best < 0 || s < best) && strcmp(name_of(owner, s), name) == 0) best = s;
    }
    return best;
}

void tc_name_index_free(tc_name_index* idx) {
    tc_free(idx->entries, (size_t)idx->capacity * sizeof *idx->entries);
    *idx = (tc_name_index){0};
}
